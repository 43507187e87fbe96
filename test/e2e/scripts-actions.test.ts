import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { createHmac } from "node:crypto";
import { newId } from "@junction/platform";
import { TEST_SECRET_KEY } from "../support/embedded-junction.ts";
import { waitFor } from "../support/wait-for.ts";
import { CAL, type ScriptsWorld, syncSource, useScriptsWorld } from "./scripts-kit.ts";

// Actions: deployed like other scripts, called with the requests of Nango's Node SDK.
// Runs start sandbox processes and wait on real time: slow under a loaded machine.
setDefaultTimeout(60_000);

const world = useScriptsWorld();

/** An action whose exec body is `body` (it gets `nango` and `input`); `extra` adds declaration fields. */
const actionSource = (body: string, extra = "") =>
  `import { createAction, ActionError } from "nango";\nexport default createAction({${extra ? `\n  ${extra},` : ""}\n  exec: async (nango, input) => {\n${body}\n  },\n});\n`;

/**
 * The requests `@nangohq/node` sends (packages/node-client/lib/index.ts): axios's defaults, its
 * User-Agent, `enrichHeaders` (Authorization and the Nango-Is-* flags), and for triggerAction the
 * Connection-Id / Provider-Config-Key headers, `X-Async: true` for triggerActionAsync, and the body
 * `{action_name, input}` (input left out when undefined, as JSON.stringify does).
 */
function sdk(w: ScriptsWorld) {
  const headers = {
    Accept: "application/json, text/plain, */*",
    "User-Agent": "nango-node-client/0.69.0 (linux/x64; node.js/22.0.0)",
    Authorization: `Bearer ${TEST_SECRET_KEY}`,
    "Nango-Is-Sync": "false",
    "Nango-Is-Script": "false",
    "Nango-Is-Dry-Run": "false",
  };
  const answer = async (res: Response) => {
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
  };
  const trigger = async (connectionId: string, actionName: string, input: unknown, async: boolean) =>
    answer(
      await fetch(`${w.j.url}/action/trigger`, {
        method: "POST",
        headers: {
          ...headers,
          "Content-Type": "application/json",
          "Connection-Id": connectionId,
          "Provider-Config-Key": CAL,
          ...(async ? { "X-Async": "true" } : {}),
        },
        body: JSON.stringify({ action_name: actionName, input }),
      }),
    );
  return {
    /** nango.triggerAction(providerConfigKey, connectionId, actionName, input) */
    triggerAction: (connectionId: string, actionName: string, input?: unknown) =>
      trigger(connectionId, actionName, input, false),
    /** nango.triggerActionAsync(...) */
    triggerActionAsync: (connectionId: string, actionName: string, input?: unknown) =>
      trigger(connectionId, actionName, input, true),
    /** nango.getAsyncActionResult({ statusUrl }) */
    getAsyncActionResult: async (statusUrl: string) => answer(await fetch(`${w.j.url}${statusUrl}`, { headers })),
  };
}

describe("actions: POST /action/trigger", () => {
  test("runs the action with its input and answers its output; the run is recorded with its logs", async () => {
    const w = await world();
    await w.connect("alice");
    const input = { type: "object", properties: { title: { type: "string" } }, required: ["title"] };
    const deployed = await w.deploy(
      "create-event",
      actionSource(
        `const metadata = await nango.getMetadata();
         nango.log("creating", input.title, { level: "warn" });
         return { title: input.title, owner: metadata.emailAddress, connection: nango.connectionId, n: [1, null] };`,
        `description: "Creates an event", input: ${JSON.stringify(input)}, output: { type: "object" }`,
      ),
    );
    expect(deployed).toMatchObject({ kind: "action", input_schema: input, output_schema: { type: "object" } });

    const res = await sdk(w).triggerAction("alice", "create-event", { title: "Standup" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ title: "Standup", owner: "alice@example.com", connection: "alice", n: [1, null] });

    const [run] = await w.runs({ trigger: "action" });
    expect(run).toMatchObject({ script_name: "create-event", connection_id: "alice", status: "succeeded" });
    const one = (await w.api("GET", `/scripts/runs/${run.id}`)).body.data;
    expect(one.logs.map((l: any) => [l.level, l.message])).toEqual([["warn", "creating Standup"]]);
    expect(one.output).toEqual(res.body);

    // An action without input, returning nothing: Nango answers JSON null.
    await w.deploy("ping", actionSource("nango.log(input === undefined ? 'no input' : 'input');"));
    const ping = await sdk(w).triggerAction("alice", "ping");
    expect([ping.status, ping.body]).toEqual([200, null]);
    expect((await w.finishedRuns({ script: "ping" }, 1))[0].logs[0].message).toBe("no input");
  });

  test("a thrown error answers Nango's codes with the script's message, its payload and the run id", async () => {
    const w = await world();
    await w.connect("alice");
    await w.deploy("refuse", actionSource(`throw new ActionError({ reason: "no calendar", at: input.at });`));
    await w.deploy("refuse-text", actionSource(`throw new nango.ActionError("plain words");`));
    await w.deploy("crash", actionSource(`const x = input.missing.field;`));
    await w.deploy("upstream", actionSource(`await nango.get({ endpoint: "/status/404" });`));

    const refused = await sdk(w).triggerAction("alice", "refuse", { at: 3 });
    expect(refused.status).toBe(500);
    expect(refused.body.error).toMatchObject({
      code: "action_script_runtime_error",
      payload: { reason: "no calendar", at: 3 },
    });
    expect(refused.body.error.run_id).toMatch(/^run_/);
    expect(refused.body.error.message).toContain(refused.body.error.run_id);
    const run = (await w.api("GET", `/scripts/runs/${refused.body.error.run_id}`)).body.data;
    expect(run).toMatchObject({ status: "failed", trigger: "action", error: { name: "ActionError" } });

    const text = await sdk(w).triggerAction("alice", "refuse-text");
    expect([text.status, text.body.error.code, text.body.error.payload]).toEqual([
      500,
      "action_script_runtime_error",
      { message: "plain words" },
    ]);

    const crashed = await sdk(w).triggerAction("alice", "crash", {});
    expect([crashed.status, crashed.body.error.code]).toEqual([500, "script_internal_error"]);
    expect(crashed.body.error.message).toContain("TypeError");
    expect(crashed.body.error.payload).toMatchObject({ name: "TypeError" });
    expect(crashed.body.error.payload.stacktrace).toContain("crash.ts:4");

    const upstream = await sdk(w).triggerAction("alice", "upstream");
    expect([upstream.status, upstream.body.error.code]).toEqual([424, "script_http_error"]);
    expect(upstream.body.error.upstream.status).toBe(404);

    expect((await w.runs({ trigger: "action", status: "failed" })).length).toBe(4);
  });

  test("an action past its deadline is killed and answered with a timeout code", async () => {
    const w = await world({ env: { JUNCTION_SCRIPTS_TIMEOUT_MS: "1500" } });
    await w.connect("alice");
    await w.deploy("spin", actionSource("nango.log('spinning'); while (true) {}"));
    const started = performance.now();
    const res = await sdk(w).triggerAction("alice", "spin");
    expect(performance.now() - started).toBeLessThan(20_000);
    expect(res.status).toBe(504);
    expect(res.body.error.code).toBe("execution_timeout");
    expect(res.body.error.message).toContain("1500 ms deadline");
    const run = (await w.api("GET", `/scripts/runs/${res.body.error.run_id}`)).body.data;
    expect(run).toMatchObject({ status: "timed_out", error: { name: "TimeoutError" } });
    expect(run.logs.map((l: any) => l.message)).toEqual(["spinning"]);
  });

  test("X-Async answers 202 with a status URL; the result is read by id once the run has ended", async () => {
    const w = await world();
    await w.connect("alice");
    await w.deploy(
      "slow",
      actionSource(`await new Promise((r) => setTimeout(r, 2000)); return { doubled: input.n * 2 };`),
    );
    await w.deploy("slow-fail", actionSource(`throw new ActionError({ code: input.code });`));
    const client = sdk(w);

    const accepted = await client.triggerActionAsync("alice", "slow", { n: 21 });
    expect(accepted.status).toBe(202);
    expect(accepted.body).toEqual({ id: expect.stringMatching(/^run_/), statusUrl: `/action/${accepted.body.id}` });
    expect(accepted.headers.get("location")).toBe(accepted.body.statusUrl);
    // The action waits 2 s in its sandbox: right after the 202 it cannot have ended.
    const early = await client.getAsyncActionResult(accepted.body.statusUrl);
    expect([early.status, early.body.error.code]).toEqual([404, "action_not_completed"]);
    const done = await waitFor(
      "the async action's result",
      async () => {
        const res = await client.getAsyncActionResult(accepted.body.statusUrl);
        return res.status === 404 ? null : res;
      },
      20_000,
      50,
    );
    expect([done.status, done.body]).toEqual([200, { doubled: 42 }]);
    expect((await w.runs({ script: "slow" }))[0]).toMatchObject({ id: accepted.body.id, trigger: "action" });

    const failing = await client.triggerActionAsync("alice", "slow-fail", { code: "E1" });
    await w.finishedRuns({ script: "slow-fail" }, 1);
    const failed = await client.getAsyncActionResult(failing.body.statusUrl);
    expect([failed.status, failed.body.error.code, failed.body.error.payload]).toEqual([
      500,
      "action_script_runtime_error",
      { code: "E1" },
    ]);
    const retries = await w.api(
      "POST",
      "/action/trigger",
      { action_name: "slow", input: { n: 1 } },
      {
        "provider-config-key": CAL,
        "connection-id": "alice",
        "x-async": "1",
        "x-max-retries": "3",
      },
    );
    expect(retries.status).toBe(202);
    await w.finishedRuns({ script: "slow" }, 2);
  });

  test("X-Max-Retries: a failing async action is tried again under its id; a signed async_action webhook says when it has ended", async () => {
    const w = await world({ env: { JUNCTION_SCRIPTS_RETRY_BASE_MS: "10", JUNCTION_SCRIPTS_RETRY_MAX_MS: "10" } });
    await w.connect("alice");
    const secret = (await w.api("POST", "/webhook-settings/signing-secret", {})).body.data.signing_secret as string;
    // Fails until its third try (the connection's metadata counts the tries).
    await w.deploy(
      "flaky",
      actionSource(`const tries = ((await nango.getMetadata()).tries ?? 0) + 1;
         await nango.updateMetadata({ tries });
         if (tries < 3) throw new ActionError({ tries });
         return { tries };`),
    );
    await w.deploy("broken", actionSource(`throw new ActionError({ reason: "always" });`));
    const trigger = (action: string, retries: string) =>
      w.api(
        "POST",
        "/action/trigger",
        { action_name: action },
        { "provider-config-key": CAL, "connection-id": "alice", "x-async": "true", "x-max-retries": retries },
      );
    const actionHooks = () =>
      w.receiver.received.filter((r) => JSON.parse(r.body).type === "async_action").map((r) => JSON.parse(r.body));

    const flaky = await trigger("flaky", "2");
    expect(flaky.status).toBe(202);
    const { id, statusUrl } = flaky.body;
    await waitFor("the flaky action's webhook", () => actionHooks().length === 1 || null, 20_000, 25);
    const [hook] = w.receiver.received.filter((r) => JSON.parse(r.body).type === "async_action");
    expect(JSON.parse(hook?.body ?? "")).toEqual({
      from: "junction",
      type: "async_action",
      connectionId: "alice",
      providerConfigKey: CAL,
      payload: { id, statusUrl },
    });
    expect(hook?.headers["x-nango-hmac-sha256"]).toBe(
      createHmac("sha256", secret)
        .update(hook?.body ?? "")
        .digest("hex"),
    );
    expect(await sdk(w).getAsyncActionResult(statusUrl)).toMatchObject({ status: 200, body: { tries: 3 } });
    expect((await w.runs({ script: "flaky" })).map((r: any) => [r.id, r.status, r.attempt])).toEqual([
      [id, "succeeded", 3],
    ]);

    // Out of tries: the last failure is the answer, and the webhook says so too.
    const broken = await trigger("broken", "1");
    await waitFor("the broken action's webhook", () => actionHooks().length === 2 || null, 20_000, 25);
    expect(actionHooks()[1].payload).toEqual({ id: broken.body.id, statusUrl: broken.body.statusUrl });
    const failed = await sdk(w).getAsyncActionResult(broken.body.statusUrl);
    expect([failed.status, failed.body.error.code, failed.body.error.payload]).toEqual([
      500,
      "action_script_runtime_error",
      { reason: "always" },
    ]);
    expect((await w.runs({ script: "broken" }))[0]).toMatchObject({ status: "failed", attempt: 2 });
  });

  test("bad requests get clear errors with stable codes and start no run", async () => {
    const w = await world();
    await w.connect("alice");
    await w.deploy("events", syncSource(""));
    const schema = { type: "object", properties: { n: { type: "integer", minimum: 1 } }, required: ["n"] };
    await w.deploy("typed", actionSource("return input.n;", `input: ${JSON.stringify(schema)}`));
    const headers = { "provider-config-key": CAL, "connection-id": "alice" };
    const cases: [Record<string, unknown>, Record<string, string>, number, string, RegExp?][] = [
      [{ action_name: "nope" }, headers, 404, "unknown_action", /"nope"/],
      [{ action_name: "events" }, headers, 404, "unknown_action", /a sync script, not an action/],
      [{ action_name: "typed" }, { ...headers, "connection-id": "ghost" }, 404, "unknown_connection", /"ghost"/],
      [{ action_name: "typed" }, { ...headers, "provider-config-key": "nope" }, 404, "unknown_provider_config"],
      [{ action_name: "typed" }, { "connection-id": "alice" }, 400, "missing_provider_config_key"],
      [{ action_name: "typed" }, { "provider-config-key": CAL }, 400, "missing_connection_id"],
      [{ input: {} }, headers, 400, "invalid_body", /action_name/],
      [{ action_name: "typed", input: { n: 0 } }, headers, 400, "invalid_action_input", /input\.n/],
      [{ action_name: "typed" }, headers, 400, "invalid_action_input"],
      [{ action_name: "typed", input: { n: 1 } }, { ...headers, "x-async": "maybe" }, 400, "invalid_headers"],
      [{ action_name: "typed", input: { n: 1 } }, { ...headers, "x-max-retries": "9" }, 400, "invalid_headers"],
    ];
    for (const [body, h, status, code, message] of cases) {
      const res = await w.api("POST", "/action/trigger", body, h);
      expect([res.status, res.body.error?.code]).toEqual([status, code]);
      if (message) expect(res.body.error.message).toMatch(message);
    }
    const invalid = await w.api("POST", "/action/trigger", { action_name: "typed", input: { n: "x" } }, headers);
    expect(invalid.body.error.errors).toEqual([
      { location: "body", path: "input.n", message: "must be a number, not a string" },
    ]);
    expect(await w.runs()).toEqual([]);

    const ok = await sdk(w).triggerAction("alice", "typed", { n: 5 });
    expect([ok.status, ok.body]).toEqual([200, 5]);
    const sync = await w.api("POST", "/sync/trigger", { provider_config_key: CAL, connection_id: "alice", syncs: [] });
    const [syncRun] = await w.finishedRuns({ script: "events" }, 1);
    expect(sync.body.runs[0].id).toBe(syncRun.id);
    for (const id of [newId("run"), syncRun.id, "run_x", "nope"]) {
      const res = await sdk(w).getAsyncActionResult(`/action/${id}`);
      expect([res.status, res.body.error.code]).toEqual([404, "unknown_action_run"]);
    }
  });
});
