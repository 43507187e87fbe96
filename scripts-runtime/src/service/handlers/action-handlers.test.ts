import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { fromJson, toJson } from "@bufbuild/protobuf";
import { ValueSchema } from "@bufbuild/protobuf/wkt";
import { ConnectError } from "@connectrpc/connect";
import { RunCallerKind, RunStatus, RunTrigger } from "@junction/contracts/scripts/v1/scripts_service_pb";
import { fromConnectError } from "@junction/platform";
import { type KitInstance, useServiceKits } from "../../../testing/service-test-kit.ts";
import { MAX_ACTION_OUTPUT_BYTES } from "../triggers/action-output.ts";

// Runs start sandbox processes: slow under a loaded machine.
setDefaultTimeout(60_000);

const kits = useServiceKits();

async function world(): Promise<KitInstance> {
  const kit = await kits.start();
  await kit.connect("alice");
  return kit.instance();
}

const deployAction = (a: KitInstance, name: string, body: string, extra = "") =>
  a.client.deployScript({
    providerConfigKey: "cal",
    name,
    source: `export default createAction({ ${extra} exec: async (nango, input) => { ${body} } });`,
  });
const code = async (call: Promise<unknown>) => {
  const err = await call.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(err instanceof ConnectError)) throw new Error(`expected a refusal, got ${JSON.stringify(err)}`);
  return [err.code, fromConnectError(err).code];
};

describe("RunAction", () => {
  test("runs the latest version with the input and answers the ended run with its output and logs", async () => {
    const a = await world();
    await deployAction(a, "sum", "return 0;");
    await deployAction(a, "sum", "nango.log('adding'); return { sum: input.a + input.b };");
    const { run } = await a.client.runAction({
      providerConfigKey: "cal",
      connectionId: "alice",
      actionName: "sum",
      input: fromJson(ValueSchema, { a: 2, b: 3 }),
    });
    expect(run).toMatchObject({ status: RunStatus.SUCCEEDED, trigger: RunTrigger.ACTION, scriptVersion: 2 });
    expect(toJson(ValueSchema, run?.output ?? fromJson(ValueSchema, null))).toEqual({ sum: 5 });
    expect(run?.logs.map((l) => l.message)).toEqual(["adding"]);
    const stored = await a.client.getRun({ id: run?.id ?? "" });
    expect(toJson(ValueSchema, stored.run?.output ?? fromJson(ValueSchema, null))).toEqual({ sum: 5 });
  });

  test("async answers the run as started; the output is on the run once it has ended", async () => {
    const a = await world();
    await deployAction(a, "later", "await new Promise((r) => setTimeout(r, 300)); return 'done';");
    const { run } = await a.client.runAction({
      providerConfigKey: "cal",
      connectionId: "alice",
      actionName: "later",
      async: true,
    });
    expect(run?.status).toBe(RunStatus.RUNNING);
    const deadline = Date.now() + 20_000;
    let ended = (await a.client.getRun({ id: run?.id ?? "" })).run;
    while (ended?.status === RunStatus.RUNNING && Date.now() < deadline) {
      await Bun.sleep(20);
      ended = (await a.client.getRun({ id: run?.id ?? "" })).run;
    }
    expect(ended?.status).toBe(RunStatus.SUCCEEDED);
    expect(ended?.output && toJson(ValueSchema, ended.output)).toBe("done");
  });

  test("the caller and the input are recorded with the run, sync and async; the answer does not echo the input", async () => {
    const a = await world();
    await deployAction(a, "echo", "return input;");
    const caller = { kind: RunCallerKind.SECRET_KEY, name: "ci-bot", keyId: "key_1" };
    const input = fromJson(ValueSchema, { title: "standup" });
    const call = { providerConfigKey: "cal", connectionId: "alice", actionName: "echo", input, caller };
    const { run } = await a.client.runAction(call);
    expect(run?.status).toBe(RunStatus.SUCCEEDED);
    expect(run?.caller).toMatchObject(caller);
    expect(run?.input).toBeUndefined();
    const stored = (await a.client.getRun({ id: run?.id ?? "" })).run;
    expect(stored?.caller).toMatchObject({ ...caller, clientId: "", endUserId: "" });
    expect(stored?.input && toJson(ValueSchema, stored.input)).toEqual({ title: "standup" });
    expect((await a.client.listRuns({})).runs[0]?.caller?.name).toBe("ci-bot");

    const mcp = { kind: RunCallerKind.MCP_CLIENT, name: "Claude", clientId: "cl_1", endUserId: "u-1" };
    const queued = (await a.client.runAction({ ...call, caller: mcp, async: true })).run;
    expect(queued?.caller).toMatchObject(mcp);
    const deadline = Date.now() + 20_000;
    let ended = (await a.client.getRun({ id: queued?.id ?? "" })).run;
    while (ended?.status === RunStatus.RUNNING && Date.now() < deadline) {
      await Bun.sleep(20);
      ended = (await a.client.getRun({ id: queued?.id ?? "" })).run;
    }
    expect(ended?.status).toBe(RunStatus.SUCCEEDED);
    expect(ended?.caller).toMatchObject(mcp);
    expect(ended?.input && toJson(ValueSchema, ended.input)).toEqual({ title: "standup" });
  });

  test("a caller's names are bounded; no caller records none", async () => {
    const a = await world();
    await deployAction(a, "noop", "return 1;");
    const call = { providerConfigKey: "cal", connectionId: "alice", actionName: "noop" };
    const long = { kind: RunCallerKind.SECRET_KEY, name: "k".repeat(256) };
    expect(await code(a.client.runAction({ ...call, caller: long }))).toEqual([3, "invalid_request"]);
    const { run } = await a.client.runAction(call);
    expect(run?.caller).toBeUndefined();
  });

  test("an output larger than an action may answer fails the run, and no output is kept", async () => {
    const a = await world();
    await deployAction(a, "huge", `return "x".repeat(${MAX_ACTION_OUTPUT_BYTES});`);
    const { run } = await a.client.runAction({ providerConfigKey: "cal", connectionId: "alice", actionName: "huge" });
    expect(run?.status).toBe(RunStatus.FAILED);
    expect(run?.error?.name).toBe("ActionOutputTooLarge");
    expect(run?.output).toBeUndefined();
  });

  test("refuses unknown actions, other kinds of script, unknown connections and input that breaks the schema", async () => {
    const a = await world();
    await a.client.deployScript({
      providerConfigKey: "cal",
      name: "daily",
      source: 'export default createSync({ frequency: "1d", exec: async () => {} });',
    });
    await deployAction(a, "typed", "return input.n;", 'input: { type: "object", required: ["n"] },');
    const run = (actionName: string, connectionId = "alice", input?: unknown) =>
      a.client.runAction({
        providerConfigKey: "cal",
        connectionId,
        actionName,
        ...(input === undefined ? {} : { input: fromJson(ValueSchema, input as never) }),
      });
    expect(await code(run("nope"))).toEqual([5, "unknown_action"]);
    expect(await code(run("daily"))).toEqual([5, "unknown_action"]);
    expect(await code(run("typed", "ghost"))).toEqual([5, "unknown_connection"]);
    expect(await code(run("typed", "alice", { m: 1 }))).toEqual([3, "invalid_action_input"]);
    expect(await code(run(""))).toEqual([3, "invalid_request"]);
    expect((await a.client.listRuns({})).runs).toEqual([]);
  });
});
