import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ManualClock } from "@junction/platform";
import { SqliteRecordStore } from "../../records/sqlite-record-store.ts";
import type { ProxyConfiguration, ProxyResponse } from "../../runtime/script-host.ts";
import { ScriptRuntime } from "../../runtime/script-runtime.ts";
import { RecordingHost, syncScript } from "../../../testing/recording-host.ts";
import { createRunRecords, type RunRecords } from "./run-records.ts";

let runtime: ScriptRuntime;
const clock = new ManualClock(1_700_000_000_000);
beforeAll(async () => {
  runtime = await ScriptRuntime.start({ poolSize: 1, clock, limits: { timeoutMs: 30_000, memoryBytes: 256 << 20 } });
});
afterAll(() => runtime.close());

const scope = { environmentId: "env_1", providerConfigKey: "gh", connectionId: "c1", variant: "base" };
const ISSUE = {
  type: "object",
  properties: {
    id: { anyOf: [{ type: "string" }, { type: "number" }] },
    title: { type: "string" },
    labels: { type: "array" },
  },
  required: ["id", "title"],
};

/** A host answering proxy calls with `answer`, and the record API on a fresh store. */
function setup(answer?: (config: ProxyConfiguration) => ProxyResponse, pagination: unknown = null) {
  const store = new SqliteRecordStore(new Database(":memory:"));
  const records: RunRecords = createRunRecords({
    store,
    now: () => clock.now(),
    scope,
    syncName: "issues",
    models: { Issue: ISSUE, Note: { type: "object" } },
    startedAt: clock.now(),
    maxRecordsPerRun: 50_000,
    pagination: async () => pagination as never,
    environmentVariables: [{ name: "REGION", value: "eu" }],
  });
  const host = new (class extends RecordingHost {
    override async proxy(config: ProxyConfiguration): Promise<ProxyResponse> {
      this.calls.push({ method: "proxy", args: [config] });
      return answer ? answer(config) : { status: 200, headers: {}, data: {} };
    }
  })();
  Object.assign(host, { records });
  return { store, records, host };
}
const run = (body: string, host: RecordingHost) =>
  runtime.run({ script: { source: syncScript(body), filename: "sync.ts" }, entry: "exec", host });
const list = (store: SqliteRecordStore, model = "Issue") =>
  store.list({ ...scope, model }, { afterSeq: null, limit: 100, actions: null, modifiedAfter: null, ids: null });

describe("the scripts' record API", () => {
  test("batchSave, batchUpdate (deep merge), getRecordsByIds, batchDelete, with Nango's answers", async () => {
    const { store, records, host } = setup();
    const result = await run(
      `const saved = await nango.batchSave([{ id: "1", title: "a", labels: ["x"] }, { id: 2, title: "b" }], "Issue");
       await nango.batchSave([{ id: "1", title: "a", labels: ["x"] }], "Issue");
       await nango.batchUpdate([{ id: "1", labels: ["y"] }, { id: "nope", title: "n" }], "Issue");
       const found = await nango.getRecordsByIds(["1", 2, "missing"], "Issue");
       await nango.batchDelete([{ id: 2 }], "Issue");
       return { saved, size: found.size, one: found.get("1"), two: found.get(2), variant: nango.variant,
                vars: await nango.getEnvironmentVariables() };`,
      host,
    );
    expect(result.error).toBeUndefined();
    expect(result.output).toEqual({
      saved: true,
      size: 2,
      one: { title: "a", labels: ["y"], id: "1" },
      two: { title: "b", id: "2" },
      variant: "base",
      vars: [{ name: "REGION", value: "eu" }],
    });
    expect(records.changes().get("Issue")).toEqual({ added: 2, updated: 1, deleted: 1, unchanged: 1 });
    const { records: stored } = await list(store);
    expect(stored.map((r) => [r.id, r.action])).toEqual([
      ["1", "UPDATED"],
      ["2", "DELETED"],
    ]);
  });

  test("deletion detection and checkpoints", async () => {
    const { store, host } = setup();
    await store.save(
      { ...scope, model: "Issue" },
      ["old", "kept"].map((id) => ({ id, data: `{"title":"${id}"}`, hash: id })),
      { now: 1 },
    );
    const result = await run(
      `await nango.trackDeletesStart("Issue");
       await nango.batchSave([{ id: "kept", title: "kept" }, { id: "new", title: "n" }], "Issue");
       const ended = await nango.trackDeletesEnd("Issue");
       const before = await nango.getCheckpoint();
       await nango.saveCheckpoint({ page: 3, since: "2024-01-01", done: false });
       const after = await nango.getCheckpoint();
       await nango.clearCheckpoint();
       return { ended, before, after, cleared: await nango.getCheckpoint() };`,
      host,
    );
    expect(result.output).toEqual({
      ended: { deletedKeys: ["old"] },
      before: null,
      after: { page: 3, since: "2024-01-01", done: false },
      cleared: null,
    });
    const { records: stored } = await list(store);
    expect(stored.find((r) => r.id === "old")?.action).toBe("DELETED");
  });

  const refused: [string, string, string][] = [
    ["a record without id", `[{ title: "x" }]`, "record 2 of model Issue has no id"],
    ["an id over 255 characters", `[{ id: "x".repeat(256), title: "x" }]`, "id is 256 characters, at most 255"],
    ["a 2 MB record", `[{ id: "big", title: "x".repeat(2 * 1024 * 1024) }]`, "at most 1048576"],
    [
      "a batch of 100,000",
      `Array.from({ length: 100000 }, (_, i) => ({ id: String(i), title: "t" }))`,
      "100001 records in one call, at most 10000",
    ],
    [
      "a record that does not fit its model",
      `[{ id: "1", title: "ok" }, { id: "2", title: 5 }]`,
      `record "2" does not fit model Issue: field title`,
    ],
  ];
  for (const [what, batch, message] of refused) {
    test(`${what} fails the run with a clear error, and nothing of the batch is written`, async () => {
      const { store, host } = setup();
      const result = await run(`await nango.batchSave([{ id: "first", title: "f" }, ...${batch}], "Issue");`, host);
      expect(result.status).toBe("failed");
      expect(result.error?.name).toBe("ScriptApiError");
      expect(result.error?.message).toContain(message);
      expect((await list(store)).records).toEqual([]);
    });
  }

  test("a batchUpdate whose merged record does not fit the model fails the run, and nothing of it is written", async () => {
    const { store, host } = setup();
    const result = await run(
      `await nango.batchSave([{ id: "1", title: "a" }, { id: "2", title: "b" }], "Issue");
       await nango.batchUpdate([{ id: "1", title: "c" }, { id: "2", title: 5 }], "Issue");`,
      host,
    );
    expect(result.status).toBe("failed");
    expect(result.error?.message).toContain(`record "2" does not fit model Issue: field title`);
    const { records: stored } = await list(store);
    expect(stored.map((r) => [r.id, JSON.parse(r.data ?? "{}").title])).toEqual([
      ["1", "a"],
      ["2", "b"],
    ]);
  });

  test("an undeclared model is refused with the sync's models named", async () => {
    const { host } = setup();
    const result = await run(`await nango.batchSave([{ id: "1" }], "Other");`, host);
    expect(result.error?.message).toContain("model Other is not one of the sync's (Issue, Note)");
  });

  test("paginate follows the provider's cursor settings, and config.paginate overrides them (offset, link)", async () => {
    const pages: Record<string, ProxyResponse> = {
      "": { status: 200, headers: {}, data: { items: [{ id: 1 }, { id: 2 }], next: "c2" } },
      c2: { status: 200, headers: {}, data: { items: [{ id: 3 }], next: "" } },
    };
    const { host } = setup(
      (config): ProxyResponse => {
        if (config.endpoint === "/cursor") return pages[String(config.params?.page_token ?? "")] as ProxyResponse;
        if (config.endpoint === "/offset") {
          const start = Number(config.params?.start);
          return { status: 200, headers: {}, data: start < 4 ? [start, start + 1] : [] };
        }
        if (config.endpoint === "/link") {
          return {
            status: 200,
            headers: { link: '<https://api.example.test/v1/link2?p=2>; rel="next"' },
            data: { list: ["a"] },
          };
        }
        return { status: 200, headers: {} as Record<string, string>, data: { list: ["b"] } };
      },
      {
        paginate: {
          type: "cursor",
          cursor_name_in_request: "page_token",
          cursor_path_in_response: "next",
          response_path: "items",
          limit_name_in_request: "limit",
        },
        baseUrl: "https://api.example.test/v1",
      },
    );
    const result = await run(
      `const out = { cursor: [], offset: [], link: [] };
       for await (const page of nango.paginate({ endpoint: "/cursor", paginate: { limit: 2 } })) out.cursor.push(page);
       for await (const page of nango.paginate({ endpoint: "/offset", paginate: { type: "offset", offset_name_in_request: "start", response_path: "" } })) out.offset.push(page);
       for await (const page of nango.paginate({ endpoint: "/link", paginate: { type: "link", link_rel_in_response_header: "next", response_path: "list" } })) out.link.push(page);
       return out;`,
      host,
    );
    expect(result.error).toBeUndefined();
    expect(result.output).toEqual({
      cursor: [[{ id: 1 }, { id: 2 }], [{ id: 3 }]],
      offset: [
        [0, 1],
        [2, 3],
      ],
      link: [["a"], ["b"]],
    });
    const endpoints = host.calls.map((c) => [
      (c.args[0] as ProxyConfiguration).endpoint,
      (c.args[0] as ProxyConfiguration).params,
    ]);
    expect(endpoints.slice(0, 2)).toEqual([
      ["/cursor", { limit: 2 }],
      ["/cursor", { limit: 2, page_token: "c2" }],
    ]);
    expect(endpoints[endpoints.length - 1]).toEqual(["/link2?p=2", undefined]);
  });
});
