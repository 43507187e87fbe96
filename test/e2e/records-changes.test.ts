import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { TEST_SECRET_KEY } from "../support/embedded-junction.ts";
import { waitFor } from "../support/wait-for.ts";
import { CAL, useScriptsWorld } from "./scripts-kit.ts";
import { type SseEvent, sseReader } from "./sse-reader.ts";

// Runs start sandbox processes and wait on real time: slow under a loaded machine.
setDefaultTimeout(90_000);

const world = useScriptsWorld();
const MODEL = "CalendarEvent";
const SYNC = `import { createSync } from "nango";
export default createSync({
  frequency: "1d",
  models: { ${MODEL}: { type: "object", properties: { id: { type: "string" }, summary: { type: "string" } }, required: ["id"] } },
  exec: async (nango) => {
    for await (const page of nango.paginate({ endpoint: "/calendar/v3/calendars/primary/events", params: { maxResults: 2 } })) {
      await nango.batchSave(page.map((e) => ({ id: e.id, summary: e.summary ?? "" })), "${MODEL}");
    }
  },
});
`;

/** A sync writing two models for its connection, without the upstream. */
const ITEMS = `import { createSync } from "nango";
export default createSync({
  frequency: "1d",
  exec: async (nango) => {
    await nango.batchSave(["1", "2"].map((id) => ({ id, owner: nango.connectionId })), "Item");
    await nango.batchSave([{ id: "t", owner: nango.connectionId }], "Tag");
  },
});
`;

describe("GET /records/changes: the change feed over HTTP", () => {
  test("follows a sync's writes as they happen, resumes from Last-Event-ID, ends when the client goes away", async () => {
    const w = await world({
      env: { JUNCTION_SCRIPTS_RECORD_FEEDS_MAX: "1", JUNCTION_SCRIPTS_RECORD_FEED_HEARTBEAT_MS: "300" },
    });
    await w.connect("alice");
    const headers = {
      authorization: `Bearer ${TEST_SECRET_KEY}`,
      "connection-id": "alice",
      "provider-config-key": CAL,
    };
    const open = (query: string, extra: Record<string, string> = {}, signal?: AbortSignal) =>
      fetch(`${w.j.url}/records/changes?${query}`, {
        headers: { ...headers, ...extra },
        ...(signal ? { signal } : {}),
      });
    for (let i = 0; i < 5; i++) {
      const created = await w.api(
        "POST",
        "/proxy/calendar/v3/calendars/primary/events",
        {
          summary: `event ${i}`,
          start: { dateTime: "2030-01-01T10:00:00Z" },
          end: { dateTime: "2030-01-01T11:00:00Z" },
        },
        { "connection-id": "alice", "provider-config-key": CAL },
      );
      expect(created.status).toBe(200);
    }
    await w.deploy("events", SYNC);

    // The feed is open before the sync runs: it receives the records as the run writes them.
    const client = new AbortController();
    const res = await open(`model=${MODEL}`, {}, client.signal);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toStartWith("text/event-stream");
    const feed = sseReader(res.body as ReadableStream<Uint8Array>);
    // A second feed of the environment is refused while this one is open (the maximum is 1).
    const refused = await open(`model=${MODEL}`);
    expect(refused.status).toBe(429);
    expect((await refused.json()).error.code).toBe("too_many_feeds");

    const trigger = await w.api("POST", "/sync/trigger", {
      provider_config_key: CAL,
      connection_id: "alice",
      syncs: ["events"],
    });
    expect(trigger.status).toBe(200);
    const events: (SseEvent | null)[] = [];
    for (let i = 0; i < 5; i++) events.push(await feed.nextRecord());
    const records = events.map((e) => JSON.parse(e?.data ?? "null"));
    expect(records.map((r) => r.summary).sort()).toEqual(["event 0", "event 1", "event 2", "event 3", "event 4"]);
    expect(records.every((r, i) => r._nango_metadata.cursor === events[i]?.id)).toBe(true);
    expect(records[0]._nango_metadata).toMatchObject({ last_action: "ADDED", deleted_at: null, pruned_at: null });
    // The same records, in the same order, as GET /records pages them.
    const listed = await w.api("GET", `/records?model=${MODEL}`, undefined, {
      "connection-id": "alice",
      "provider-config-key": CAL,
    });
    expect(listed.body.records).toEqual(records);
    // Nothing changes: heartbeats.
    expect((await feed.next())?.comment).toBe("heartbeat");

    // The client goes away: its place is given back (a new feed opens), resumed after the second record.
    client.abort();
    const resumed = await waitFor("a feed once the first is closed", async () => {
      const r = await open(`model=${MODEL}`, { "last-event-id": events[1]?.id as string });
      if (r.status === 200) return r;
      await r.body?.cancel();
      return null;
    });
    const again = sseReader(resumed.body as ReadableStream<Uint8Array>);
    const after: (string | undefined)[] = [];
    for (let i = 0; i < 3; i++) after.push((await again.nextRecord())?.id);
    expect(after).toEqual(events.slice(2).map((e) => e?.id));
    await again.cancel();
  });

  test("bad input: a missing model, an unknown query parameter, an unknown connection, a forged cursor, no key", async () => {
    const w = await world();
    await w.connect("alice");
    await w.connect("bob", "bob@example.com");
    const get = (query: string, connectionId = "alice", extra: Record<string, string> = {}) =>
      w.api("GET", `/records/changes?${query}`, undefined, {
        "connection-id": connectionId,
        "provider-config-key": CAL,
        ...extra,
      });
    const codeOf = async (p: Promise<{ status: number; body: any }>) => {
      const r = await p;
      return [r.status, r.body?.error?.code];
    };
    expect(await codeOf(get(""))).toEqual([400, "invalid_query_params"]);
    expect(await codeOf(get(`model=${MODEL}&limit=3`))).toEqual([400, "invalid_query_params"]);
    expect(await codeOf(get(`model=${MODEL}`, "carol"))).toEqual([400, "unknown_connection"]);
    expect(await codeOf(get(`model=${MODEL}&cursor=djEuMS5mb3JnZWQ`))).toEqual([400, "invalid_cursor"]);
    expect(await codeOf(get(`model=${MODEL}`, "alice", { "last-event-id": "forged" }))).toEqual([
      400,
      "invalid_cursor",
    ]);
    const anon = await fetch(`${w.j.url}/records/changes?model=${MODEL}`, {
      headers: { "connection-id": "alice", "provider-config-key": CAL },
    });
    expect(anon.status).toBe(401);
  });

  test("deleting a connection removes its records (every model) and ends its feeds; others are kept", async () => {
    const w = await world();
    await w.connect("alice");
    await w.connect("bob", "bob@example.com");
    await w.deploy("items", ITEMS);
    const records = (connectionId: string, model = "Item") =>
      w.api("GET", `/records?model=${model}`, undefined, { "connection-id": connectionId, "provider-config-key": CAL });
    for (const [i, connectionId] of ["alice", "bob"].entries()) {
      const res = await w.api("POST", "/sync/trigger", {
        provider_config_key: CAL,
        connection_id: connectionId,
        syncs: ["items"],
      });
      expect(res.status).toBe(200);
      expect((await w.finishedRuns({ script: "items" }, i + 1)).every((r) => r.status === "succeeded")).toBe(true);
    }
    expect((await records("alice", "Tag")).body.records).toHaveLength(1);
    const res = await fetch(`${w.j.url}/records/changes?model=Item`, {
      headers: { authorization: `Bearer ${TEST_SECRET_KEY}`, "connection-id": "alice", "provider-config-key": CAL },
    });
    const feed = sseReader(res.body as ReadableStream<Uint8Array>);
    for (let i = 0; i < 2; i++) expect((await feed.nextRecord())?.data).toContain('"owner":"alice"');

    expect((await w.api("DELETE", `/connection/alice?provider_config_key=${CAL}`)).status).toBe(200);
    expect(await feed.nextRecord()).toBeNull();
    expect((await records("alice")).body.error.code).toBe("unknown_connection");
    expect((await records("bob")).body.records.map((r: any) => r.owner)).toEqual(["bob", "bob"]);
    // A connection created again under the same id starts with nothing of the old one's.
    await w.connect("alice");
    expect((await records("alice")).body).toEqual({ next_cursor: null, records: [] });
    expect((await records("alice", "Tag")).body).toEqual({ next_cursor: null, records: [] });
  });
});
