import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ManualClock } from "@junction/platform";
import { RecordingHost, syncScript } from "../../testing/recording-host.ts";
import type { RunRequest } from "./run-types.ts";
import { ScriptHostError } from "./script-host.ts";
import { ScriptRuntime } from "./script-runtime.ts";

let runtime: ScriptRuntime;
const clock = new ManualClock();
beforeAll(async () => {
  runtime = await ScriptRuntime.start({ poolSize: 2, clock, limits: { timeoutMs: 10_000 } });
});
afterAll(() => runtime.close());

const run = (body: string, host = new RecordingHost(), extra: Partial<RunRequest> = {}) =>
  runtime.run({ script: { source: syncScript(body), filename: "sync.ts" }, entry: "exec", host, ...extra });

describe("script API", () => {
  test("proxy and its helpers reach the host with Nango's configuration and return its response", async () => {
    const host = new RecordingHost();
    host.routes.set("/calendars/primary", { status: 200, headers: { etag: "x" }, data: { id: "primary" } });
    const result = await run(
      `const res = await nango.get({ endpoint: "/calendars/primary", params: { maxResults: 5 }, retries: 2 });
       await nango.post({ endpoint: "/calendars/primary/events/watch", data: { id: "ch-1" }, headers: { "x-a": "1" } });
       await nango.put({ endpoint: "/p" }); await nango.patch({ endpoint: "/q" }); await nango.delete({ endpoint: "/r" });
       await nango.proxy({ method: "post", endpoint: "/channels/stop", baseUrlOverride: "https://www.googleapis.com" });
       return { status: res.status, data: res.data, etag: res.headers.etag };`,
      host,
    );
    expect(result.status).toBe("succeeded");
    expect(result.output).toEqual({ status: 200, data: { id: "primary" }, etag: "x" });
    expect(host.calls.map((c) => c.args[0])).toEqual([
      { endpoint: "/calendars/primary", method: "GET", params: { maxResults: 5 }, retries: 2 },
      { endpoint: "/calendars/primary/events/watch", method: "POST", data: { id: "ch-1" }, headers: { "x-a": "1" } },
      { endpoint: "/p", method: "PUT" },
      { endpoint: "/q", method: "PATCH" },
      { endpoint: "/r", method: "DELETE" },
      { endpoint: "/channels/stop", method: "POST", baseUrlOverride: "https://www.googleapis.com" },
    ]);
  });

  test("an upstream error status is thrown as a catchable error with status and body", async () => {
    const host = new RecordingHost();
    host.routes.set("/calendars/gone", {
      status: 404,
      headers: {},
      data: { error: { code: 404, message: "Not Found" } },
    });
    const result = await run(
      `try { await nango.get({ endpoint: "/calendars/gone" }); return "no error"; }
       catch (err) { return { name: err.name, status: err.status, body: err.body, axios: err.response.status, isError: err instanceof Error, api: err instanceof ScriptApiError }; }`,
      host,
    );
    expect(result.output).toEqual({
      name: "ScriptApiError",
      status: 404,
      body: { error: { code: 404, message: "Not Found" } },
      axios: 404,
      isError: true,
      api: true,
    });
  });

  test("an uncaught API error fails the run with its status and body", async () => {
    const host = new RecordingHost();
    host.routes.set("/x", { status: 409, headers: {}, data: { reason: "conflict" } });
    const result = await run(`await nango.post({ endpoint: "/x" });`, host);
    expect(result.status).toBe("failed");
    expect(result.error).toMatchObject({ name: "ScriptApiError", status: 409, body: { reason: "conflict" } });
    expect(result.error?.message).toContain("POST /x failed with status 409");
  });

  test("connection, metadata and webhook URL calls go to the host", async () => {
    const host = new RecordingHost();
    host.metadata = { calendarChannelId: "old" };
    const result = await run(
      `const before = await nango.getMetadata();
       await nango.updateMetadata({ calendarResourceId: "res-1" });
       const merged = await nango.getMetadata();
       await nango.setMetadata({ only: true });
       const connection = await nango.getConnection();
       return { before, merged, after: await nango.getMetadata(), url: await nango.getWebhookURL(), id: connection.connection_id };`,
      host,
    );
    expect(result.output).toEqual({
      before: { calendarChannelId: "old" },
      merged: { calendarChannelId: "old", calendarResourceId: "res-1" },
      after: { only: true },
      url: "https://junction.example.test/webhook/env_1/google-calendar",
      id: "conn-1",
    });
    expect(host.calls.find((c) => c.method === "getConnection")?.args).toEqual([null, null]);
  });

  test("a host failure reaches the script as a catchable error; an internal one says nothing internal", async () => {
    const host = new RecordingHost();
    host.getMetadata = async () => {
      throw new ScriptHostError(
        "connection not found",
        404,
        { error: { code: "unknown_connection" } },
        "unknown_connection",
      );
    };
    host.getWebhookURL = async () => {
      throw new Error("db password is hunter2");
    };
    const result = await run(
      `const out = [];
       try { await nango.getMetadata(); } catch (e) { out.push([e.status, e.code, e.body, e.message]); }
       try { await nango.getWebhookURL(); } catch (e) { out.push([e.status, e.code, e.message]); }
       return out;`,
      host,
    );
    expect(result.output).toEqual([
      [404, "unknown_connection", { error: { code: "unknown_connection" } }, "connection not found"],
      [500, "internal_error", "nango.getWebhookURL failed because of an internal error"],
    ]);
    expect(JSON.stringify(result)).not.toContain("hunter2");
  });

  test.each([
    ["nango.get('/calendars')", "nango.get(config): config must be an object"],
    ["nango.get({})", "config.endpoint must be a non-empty string"],
    ["nango.proxy({ endpoint: '/x', method: 'FETCH' })", "config.method must be one of"],
    ["nango.get({ endpoint: '/x', retrys: 3 })", 'unknown option "retrys"'],
    ["nango.get({ endpoint: '/x', retries: 'many' })", "argument 1 (retries)"],
    ["nango.get({ endpoint: '/x', baseUrlOverride: 'file:///etc/passwd' })", "argument 1 (baseUrlOverride)"],
    ["nango.get({ endpoint: '/x', headers: { a: 1 } })", "argument 1 (headers.a)"],
    ["nango.setMetadata('calendar')", "metadata must be an object"],
    ["nango.updateMetadata([1, 2])", "metadata must be an object, got an array"],
    ["nango.getConnection(42)", "argument 1 must be a string"],
    ["setTimeout('code', 10)", "fn must be a function"],
    ["createSync(null)", "declaration must be an object"],
  ])("wrong arguments: %s throws a TypeError in the script", async (call, message) => {
    const host = new RecordingHost();
    const result = await run(
      `try { await ${call}; return "accepted"; } catch (e) { return { type: e instanceof TypeError, message: e.message }; }`,
      host,
    );
    expect(result.status).toBe("succeeded");
    expect(result.output).toMatchObject({ type: true });
    expect((result.output as { message: string }).message).toContain(message);
    expect(host.calls).toEqual([]);
  });

  test("logs keep their levels, in order, with the runtime clock's time, and stream to the host", async () => {
    const host = new RecordingHost();
    const result = await run(
      `console.log("plain", { a: 1 }, [2], null, undefined, 3n);
       console.info("info"); console.warn("careful"); console.error("bad", new Error("why")); console.debug("dbg");
       nango.log("from nango"); nango.log("as warning", { level: "warn" }); nango.log("as error", { level: "error" });
       nango.log("not a level", { level: "loud" });`,
      host,
    );
    expect(result.logs.map((l) => [l.level, l.message])).toEqual([
      ["info", 'plain {"a":1} [2] null undefined 3n'],
      ["info", "info"],
      ["warn", "careful"],
      ["error", "bad Error: why"],
      ["debug", "dbg"],
      ["info", "from nango"],
      ["warn", "as warning"],
      ["error", "as error"],
      ["info", 'not a level {"level":"loud"}'],
    ]);
    expect(result.logs.every((l) => l.at === clock.now())).toBe(true);
    expect(host.streamed).toEqual(result.logs);
  });

  test("more than 64 API calls in flight are refused in the script; the host serves 4 of a run's at a time", async () => {
    const host = new RecordingHost();
    let serving = 0;
    let most = 0;
    const releases: Array<() => void> = [];
    let fourServed: () => void = () => {};
    const four = new Promise<void>((resolve) => {
      fourServed = resolve;
    });
    host.getMetadata = async () => {
      host.calls.push({ method: "getMetadata", args: [] });
      serving++;
      most = Math.max(most, serving);
      if (serving === 4) fourServed();
      await new Promise<void>((resolve) => releases.push(resolve));
      serving--;
      return { ok: true };
    };
    const running = run(
      `const calls = Array.from({ length: 100 }, () => nango.getMetadata().then(() => "ok", (e) => e.message));
       return [...new Set(await Promise.all(calls))];`,
      host,
    );
    await four;
    // Each answer lets the next in line in, one for one, until the 64 in flight are served.
    for (let answered = 0; answered < 64; answered++) {
      const next = await waitForRelease(releases);
      next();
    }
    const result = await running;
    expect(result.output).toEqual(["ok", "too many script API calls in flight (at most 64): await some first"]);
    expect(host.calls).toHaveLength(64);
    expect(most).toBe(4);
  });

  test("ids are generated inside the sandbox, unique, in UUID form", async () => {
    const result = await run(`return [nango.uuid(), nango.uuid(), crypto.randomUUID()];`);
    const ids = result.output as string[];
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(ids).size).toBe(3);
  });

  test("the run's context is readable on nango; onWebhook receives the payload", async () => {
    const source = `import { createSync } from "nango";
      export default createSync({
        frequency: "every day",
        webhookSubscriptions: ["*"],
        exec: async () => "exec",
        onWebhook: async (nango, payload) => ({ connection: nango.connectionId, key: nango.providerConfigKey,
          env: nango.environmentId, script: nango.scriptName, run: nango.activityLogId,
          last: nango.lastSyncDate.toISOString(), payload }),
      });`;
    const payload = { headers: { "x-goog-resource-state": "exists" }, body: null };
    const result = await runtime.run({
      script: { source, filename: "renewal.ts" },
      entry: "onWebhook",
      input: payload,
      context: {
        connectionId: "conn-1",
        providerConfigKey: "google-calendar",
        environmentId: "env_1",
        scriptName: "renewal",
        runId: "run_1",
        lastSyncDate: Date.UTC(2026, 0, 1),
      },
      host: new RecordingHost(),
    });
    expect(result.output).toEqual({
      connection: "conn-1",
      key: "google-calendar",
      env: "env_1",
      script: "renewal",
      run: "run_1",
      last: "2026-01-01T00:00:00.000Z",
      payload,
    });
  });

  test("timers work and the run waits for them", async () => {
    const result = await run(
      `const order = [];
       const cancelled = setTimeout(() => order.push("never"), 5);
       clearTimeout(cancelled);
       await new Promise((resolve) => setTimeout(() => { order.push("timer"); resolve(); }, 20));
       order.push("after");
       return order;`,
    );
    expect(result.output).toEqual(["timer", "after"]);
  });

  test("a thrown error's stack has the script's frames at the lines of the uploaded TypeScript", async () => {
    const source = [
      "interface Calendar { id: string }",
      "",
      "// a comment that the compiler drops",
      "function check(calendar: Calendar): void {",
      "  if (calendar.id !== 'primary') {",
      "    throw new Error('unexpected calendar ' + calendar.id);",
      "  }",
      "}",
      "",
      "export default createSync({",
      "  frequency: '1d',",
      "  exec: async () => {",
      "    check({ id: 'other' } as Calendar);",
      "  },",
      "});",
    ].join("\n");
    const result = await runtime.run({
      script: { source, filename: "calendar.ts" },
      entry: "exec",
      host: new RecordingHost(),
    });
    expect(result.status).toBe("failed");
    expect(result.error?.message).toBe("unexpected calendar other");
    const lines = (result.error?.stack ?? "").split("\n");
    expect(lines[0]).toMatch(/^ {4}at check \(calendar\.ts:6:\d+\)$/);
    expect(lines[1]).toMatch(/calendar\.ts:13:\d+\)$/);
    expect(result.error?.stack).not.toContain("prelude");
  });

  test("an entry the script does not have fails the run clearly", async () => {
    const result = await run(`return 1;`, new RecordingHost(), { entry: "onWebhook" });
    expect(result.status).toBe("failed");
    expect(result.error).toEqual({ name: "ScriptInvalid", message: "the script has no onWebhook function" });
  });

  test("a script given as source that does not compile fails with file and line", async () => {
    const result = await runtime.run({
      script: {
        source: "export default createSync({\n  frequency: '1d',\n  exec: async () => { return ; ; ) }\n});",
        filename: "broken.ts",
      },
      entry: "exec",
      host: new RecordingHost(),
    });
    expect(result.status).toBe("failed");
    expect(result.error?.name).toBe("CompileError");
    expect(result.error?.message).toMatch(/^broken\.ts:3:\d+: /);
  });
});

/** The next waiting call's release, once one waits. */
async function waitForRelease(releases: Array<() => void>): Promise<() => void> {
  for (;;) {
    const next = releases.shift();
    if (next) return next;
    await new Promise((resolve) => setImmediate(resolve));
  }
}
