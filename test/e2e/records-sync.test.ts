import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { Nango } from "@nangohq/node";
import { TEST_SECRET_KEY } from "../support/embedded-junction.ts";
import { waitFor } from "../support/wait-for.ts";
import { sdkFailure } from "./nango-sdk-kit.ts";
import { CAL, useScriptsWorld } from "./scripts-kit.ts";

// Runs start sandbox processes and wait on real time: slow under a loaded machine.
setDefaultTimeout(90_000);

const world = useScriptsWorld();
const MODEL = "CalendarEvent";

/** A Nango-style sync: pages through the calendar with the provider's pagination, saves, detects deletions. */
const SYNC = `import { createSync } from "nango";
export default createSync({
  frequency: "1d",
  models: {
    ${MODEL}: {
      type: "object",
      properties: { id: { type: "string" }, summary: { type: "string" }, status: { type: "string" } },
      required: ["id", "summary"],
    },
  },
  exec: async (nango) => {
    await nango.trackDeletesStart("${MODEL}");
    let pages = 0;
    for await (const page of nango.paginate({ endpoint: "/calendar/v3/calendars/primary/events", params: { maxResults: 2 } })) {
      pages++;
      await nango.batchSave(page.map((e) => ({ id: e.id, summary: e.summary ?? "", status: e.status })), "${MODEL}");
    }
    await nango.trackDeletesEnd("${MODEL}");
    await nango.saveCheckpoint({ pages });
  },
});
`;

describe("records: a sync's records read with Nango's Node SDK", () => {
  test("listRecords pages with cursors, filters, modifiedAfter; a second run gives UPDATED and DELETED and a sync webhook", async () => {
    const w = await world();
    await w.connect("alice");
    await w.connect("bob", "bob@example.com");
    const nango = new Nango({ secretKey: TEST_SECRET_KEY, host: w.j.url });
    const proxy = (method: string, path: string, body?: unknown) =>
      w.api(method, `/proxy/calendar/v3/calendars/primary/events${path}`, body, {
        "connection-id": "alice",
        "provider-config-key": CAL,
      });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const created = await proxy("POST", "", {
        summary: `event ${i}`,
        start: { dateTime: "2030-01-01T10:00:00Z" },
        end: { dateTime: "2030-01-01T11:00:00Z" },
      });
      expect(created.status).toBe(200);
      ids.push(created.body.id);
    }
    await w.deploy("events", SYNC);
    const trigger = async (count: number) => {
      const res = await w.api("POST", "/sync/trigger", {
        provider_config_key: CAL,
        connection_id: "alice",
        syncs: ["events"],
      });
      expect(res.status).toBe(200);
      const runs = await w.finishedRuns({ script: "events", connection_id: "alice" }, count);
      expect(runs[count - 1].status).toBe("succeeded");
      return runs[count - 1];
    };
    const first = await trigger(1);

    // Pages of 2 with the SDK's cursor; every record once, in order, Nango's shape.
    const seen: any[] = [];
    let cursor: string | null | undefined;
    do {
      const page = await nango.listRecords<{ id: string; summary: string }>({
        providerConfigKey: CAL,
        connectionId: "alice",
        model: MODEL,
        limit: 2,
        ...(cursor ? { cursor } : {}),
      });
      seen.push(...page.records);
      cursor = page.next_cursor;
    } while (cursor);
    // Each page of the upstream is one batch: ordered by batch, then by id within one.
    expect(seen.map((r) => r.id).sort()).toEqual([...ids].sort());
    expect(new Set(seen.map((r) => r._nango_metadata.cursor)).size).toBe(5);
    expect(seen[0]).toEqual({
      summary: expect.stringMatching(/^event /),
      status: "confirmed",
      id: expect.any(String),
      _nango_metadata: {
        first_seen_at: expect.any(String),
        last_modified_at: expect.any(String),
        last_action: "ADDED",
        deleted_at: null,
        cursor: expect.any(String),
        pruned_at: null,
      },
    });
    // Bob's connection sees nothing of Alice's, even with her cursor.
    const bob = await nango.listRecords({ providerConfigKey: CAL, connectionId: "bob", model: MODEL });
    expect(bob).toEqual({ records: [], next_cursor: null });
    expect(
      await sdkFailure(
        nango.listRecords({
          providerConfigKey: CAL,
          connectionId: "bob",
          model: MODEL,
          cursor: seen[0]._nango_metadata.cursor,
        }),
      ),
    ).toEqual({ status: 400, code: "invalid_cursor" });

    const [hook1] = await waitFor("the first sync webhook", () => {
      const hooks = w.receiver.received.map((r) => JSON.parse(r.body)).filter((b) => b.type === "sync");
      return hooks.length >= 1 ? hooks : null;
    });
    expect(hook1).toEqual({
      from: "junction",
      type: "sync",
      connectionId: "alice",
      providerConfigKey: CAL,
      syncName: "events",
      syncVariant: "base",
      model: MODEL,
      syncType: "INITIAL",
      checkpoints: { from: null, to: { pages: 3 } },
      success: true,
      responseResults: { added: 5, updated: 0, deleted: 0 },
      modifiedAfter: new Date(first.started_at).toISOString(),
      queryTimeStamp: new Date(first.started_at).toISOString(),
    });

    // Upstream changes: one event renamed, one deleted, one added.
    expect((await proxy("PATCH", `/${ids[1]}`, { summary: "renamed" })).status).toBe(200);
    expect((await proxy("DELETE", `/${ids[2]}`)).status).toBeLessThan(300);
    const added = await proxy("POST", "", {
      summary: "new",
      start: { dateTime: "2030-01-02T10:00:00Z" },
      end: { dateTime: "2030-01-02T11:00:00Z" },
    });
    const second = await trigger(2);
    const hook2 = await waitFor("the second sync webhook", () => {
      const hooks = w.receiver.received.map((r) => JSON.parse(r.body)).filter((b) => b.type === "sync");
      return hooks.length >= 2 ? hooks[1] : null;
    });
    expect(hook2).toMatchObject({
      syncType: "INCREMENTAL",
      responseResults: { added: 1, updated: 1, deleted: 1 },
      modifiedAfter: new Date(second.started_at).toISOString(),
      checkpoints: { from: { pages: 3 }, to: { pages: 3 } },
    });

    const changed = await nango.listRecords<any>({
      providerConfigKey: CAL,
      connectionId: "alice",
      model: MODEL,
      modifiedAfter: hook2.modifiedAfter,
    });
    expect(changed.records.map((r: any) => [r.id, r._nango_metadata.last_action]).sort()).toEqual(
      [
        [ids[1], "UPDATED"],
        [ids[2], "DELETED"],
        [added.body.id, "ADDED"],
      ].sort(),
    );
    const deleted = changed.records.find((r: any) => r.id === ids[2]);
    expect(deleted.summary).toBe("event 2");
    const only = async (filter: string) =>
      (
        await nango.listRecords<any>({
          providerConfigKey: CAL,
          connectionId: "alice",
          model: MODEL,
          filter: filter as never,
        })
      ).records
        .map((r: any) => r.id)
        .sort();
    expect(await only("deleted")).toEqual([ids[2]]);
    expect(await only("updated,deleted")).toEqual([ids[1], ids[2]].sort());
    const byIds = await nango.listRecords<any>({
      providerConfigKey: CAL,
      connectionId: "alice",
      model: MODEL,
      ids: [ids[0] as string, "nope"],
    });
    expect(byIds.records.map((r: any) => r.id)).toEqual([ids[0]]);

    // Status carries the counts and the checkpoint.
    const status = await w.api("GET", `/sync/status?provider_config_key=${CAL}&syncs=events&connection_id=alice`);
    expect(status.body.syncs[0]).toMatchObject({ recordCount: { [MODEL]: 6 }, checkpoint: { pages: 3 } });

    // Prune up to the third record: payloads gone, order and ids kept.
    const all = await nango.listRecords<any>({ providerConfigKey: CAL, connectionId: "alice", model: MODEL });
    const until = all.records[2]._nango_metadata.cursor;
    expect(
      await nango.pruneRecords({
        providerConfigKey: CAL,
        connectionId: "alice",
        model: MODEL,
        untilCursor: until,
        limit: 2,
      }),
    ).toEqual({
      count: 2,
      has_more: true,
    });
    expect(
      await nango.pruneRecords({ providerConfigKey: CAL, connectionId: "alice", model: MODEL, untilCursor: until }),
    ).toEqual({
      count: 1,
      has_more: false,
    });
    const pruned = await nango.listRecords<any>({ providerConfigKey: CAL, connectionId: "alice", model: MODEL });
    expect(pruned.records.map((r: any) => r.id)).toEqual(all.records.map((r: any) => r.id));
    expect(Object.keys(pruned.records[0])).toEqual(["id", "_nango_metadata"]);
    expect(pruned.records[0]._nango_metadata.pruned_at).toEqual(expect.any(String));
  });

  test("bad reads: unknown connection, forged cursor, limits, missing headers", async () => {
    const w = await world();
    await w.connect("alice");
    const nango = new Nango({ secretKey: TEST_SECRET_KEY, host: w.j.url });
    // A model no sync has written: an empty list, as Nango.
    expect(await nango.listRecords({ providerConfigKey: CAL, connectionId: "alice", model: "Nothing" })).toEqual({
      records: [],
      next_cursor: null,
    });
    expect(await sdkFailure(nango.listRecords({ providerConfigKey: CAL, connectionId: "ghost", model: "X" }))).toEqual({
      status: 400,
      code: "unknown_connection",
    });
    const headers = { "connection-id": "alice", "provider-config-key": CAL };
    const cases: [string, number, string][] = [
      ["/records?model=X&cursor=Zm9yZ2Vk", 400, "invalid_cursor"],
      ["/records?model=X&limit=0", 400, "invalid_query_params"],
      ["/records?model=X&limit=1000000", 400, "invalid_query_params"],
      ["/records?model=X&filter=changed", 400, "invalid_query_params"],
      ["/records", 400, "invalid_query_params"],
    ];
    for (const [path, status, code] of cases) {
      const res = await w.api("GET", path, undefined, headers);
      expect([path, res.status, res.body.error?.code]).toEqual([path, status, code]);
    }
    const noHeaders = await w.api("GET", "/records?model=X");
    expect([noHeaders.status, noHeaders.body.error?.code]).toEqual([400, "invalid_headers"]);
    const prune = await w.api("PATCH", "/records/prune", { model: "X", until_cursor: "Zm9yZ2Vk" }, headers);
    expect([prune.status, prune.body.error?.code]).toEqual([400, "invalid_cursor"]);
  });
});
