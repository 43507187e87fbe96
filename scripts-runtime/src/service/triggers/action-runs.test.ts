import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { fromBinary } from "@bufbuild/protobuf";
import { queues } from "@junction/bus";
import { type DeliveryRequested, DeliveryRequestedSchema } from "@junction/contracts/events/v1/events_pb";
import { MetadataWriteMode } from "@junction/contracts/connection/v1/connection_service_pb";
import { RunStatus } from "@junction/contracts/scripts/v1/scripts_service_pb";
import { fromConnectError } from "@junction/platform";
import type { ScriptRunRecord } from "../../store/records.ts";
import { type KitInstance, type ServiceKit, useServiceKits } from "../../../testing/service-test-kit.ts";

// Runs start sandbox processes and wait on real time: slow under a loaded machine.
setDefaultTimeout(60_000);

const kits = useServiceKits(2);
const FAST_RETRIES = { retryBaseMs: 10, retryMaxMs: 10 };

const deploy = (a: KitInstance, name: string, body: string) =>
  a.client.deployScript({
    providerConfigKey: "cal",
    name,
    source: `export default createAction({ exec: async (nango, input) => { ${body} } });`,
  });

const runAsync = async (a: KitInstance, actionName: string, maxRetries: number) => {
  const { run } = await a.client.runAction({
    providerConfigKey: "cal",
    connectionId: "alice",
    actionName,
    async: true,
    maxRetries,
  });
  expect(run?.status).toBe(RunStatus.RUNNING);
  return run?.id ?? "";
};

/**
 * The delivery requests the scripts service put on the webhook queue, taken from each instance's
 * bus (an in-process bus wakes its own consumers only, even on a shared queue file).
 */
async function webhooks(...instances: KitInstance[]): Promise<DeliveryRequested[]> {
  const got: DeliveryRequested[] = [];
  for (const a of instances) {
    await a.bus.consume(queues.webhookDelivery, async (job) => {
      got.push(fromBinary(DeliveryRequestedSchema, job.data));
      await job.ack();
    });
  }
  return got;
}

/** Waits until run `id` has ended, moving the kit's clocks so that the queue's backoffs pass. */
async function ended(kit: ServiceKit, a: KitInstance, id: string, step = 1000): Promise<ScriptRunRecord> {
  const env = (await kit.connections.getEnvironment({})).environment?.id ?? "";
  const deadline = Date.now() + 30_000;
  for (;;) {
    const run = await a.stores.runs.get(env, id);
    if (run && run.status !== "running") return run;
    if (Date.now() > deadline) throw new Error(`run ${id} still ${run?.status}`);
    await kit.advance(step);
    await Bun.sleep(20);
  }
}

async function until<T>(what: string, probe: () => T | undefined | Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(20);
  }
}

/**
 * An instance on the shared queue file running an async action (`body`, X-Max-Retries 0) that sets the
 * connection's `claimed` metadata first: answers once it has, its job taken and unsettled.
 */
async function hungInstance(kit: ServiceKit, body: string): Promise<{ a: KitInstance; id: string }> {
  await kit.connect("alice");
  // One job at a time: the instance cannot take its own job again while its run hangs.
  const a = await kit.instance({ timeoutMs: 20_000, jobConcurrency: 1 }, { sharedQueues: true });
  await deploy(a, "hung", body);
  const id = await runAsync(a, "hung", 0);
  await until("the first instance to run it", async () => {
    const { connection } = await kit.connections.getConnection({ providerConfigKey: "cal", connectionId: "alice" });
    return connection?.metadata?.claimed === true;
  });
  return { a, id };
}

const bodyOf = (d: DeliveryRequested) => JSON.parse(new TextDecoder().decode(d.body));

describe("async actions on the durable queue", () => {
  test("a failing action is tried X-Max-Retries more times under its id, then ends failed with one webhook", async () => {
    const kit = await kits.start();
    await kit.connect("alice");
    const a = await kit.instance(FAST_RETRIES);
    const sent = await webhooks(a);
    await deploy(a, "broken", "nango.log('trying'); throw new Error('nope');");
    const id = await runAsync(a, "broken", 2);
    const run = await ended(kit, a, id);
    expect(run).toMatchObject({ id, status: "failed", attempt: 3, error: { name: "Error", message: "nope" } });
    expect(run.logs.map((l) => l.message)).toEqual(["trying"]); // the last try's
    const env = run.environmentId;
    expect(await a.stores.runs.list(env, { trigger: "action" })).toHaveLength(1);
    await until("the webhook", () => sent.length > 0);
    expect(sent.map((d) => [d.type, d.connectionId, d.providerConfigKey])).toEqual([["async_action", "alice", "cal"]]);
    expect(bodyOf(sent[0] as DeliveryRequested)).toEqual({
      from: "junction",
      type: "async_action",
      connectionId: "alice",
      providerConfigKey: "cal",
      payload: { id, statusUrl: `/action/${id}` },
    });
  });

  test("an action that fails once then succeeds ends with the succeeding try's output; without retries a failure is final", async () => {
    const kit = await kits.start();
    await kit.connect("alice");
    const a = await kit.instance(FAST_RETRIES);
    const sent = await webhooks(a);
    await deploy(
      a,
      "flaky",
      `const tries = ((await nango.getMetadata()).tries ?? 0) + 1;
       await nango.updateMetadata({ tries });
       if (tries < 2) throw new Error("not yet");
       return { tries };`,
    );
    const id = await runAsync(a, "flaky", 3);
    const run = await ended(kit, a, id);
    expect(run).toMatchObject({ id, status: "succeeded", attempt: 2, output: { tries: 2 } });
    await until("the webhook", () => sent.length > 0);
    expect(bodyOf(sent[0] as DeliveryRequested).payload).toEqual({ id, statusUrl: `/action/${id}` });

    await deploy(a, "once", "throw new Error('no retries');");
    const once = await ended(kit, a, await runAsync(a, "once", 0));
    expect(once).toMatchObject({ status: "failed", attempt: 1 });
  });

  test("an action removed while its run waits in the queue ends that run failed, with its webhook", async () => {
    const kit = await kits.start();
    await kit.connect("alice");
    // One job at a time: "gone" waits behind "gate", which runs until the connection's metadata opens it.
    const a = await kit.instance({ ...FAST_RETRIES, jobConcurrency: 1 });
    const sent = await webhooks(a);
    await deploy(a, "gate", "while (!(await nango.getMetadata()).open) await new Promise((r) => setTimeout(r, 20));");
    await deploy(a, "gone", "return 1;");
    const gate = await runAsync(a, "gate", 0);
    const gone = await runAsync(a, "gone", 0);
    await a.client.removeScript({ providerConfigKey: "cal", name: "gone" });
    await kit.connections.writeMetadata({
      providerConfigKey: "cal",
      connectionIds: ["alice"],
      metadata: { open: true },
      mode: MetadataWriteMode.UPDATE,
    });
    expect(await ended(kit, a, gate)).toMatchObject({ status: "succeeded" });
    expect(await ended(kit, a, gone)).toMatchObject({ status: "failed", error: { name: "ActionRemoved" } });
    await until("both webhooks", () => sent.length === 2 || undefined);
    expect(sent.map((d) => bodyOf(d).payload.id).sort()).toEqual([gate, gone].sort());
  });

  test("X-Max-Retries past 5 is refused and nothing is recorded", async () => {
    const kit = await kits.start();
    await kit.connect("alice");
    const a = await kit.instance();
    await deploy(a, "fine", "return 1;");
    const err = await a.client
      .runAction({ providerConfigKey: "cal", connectionId: "alice", actionName: "fine", async: true, maxRetries: 6 })
      .catch((e: unknown) => e);
    expect(fromConnectError(err).code).toBe("invalid_request");
    const env = (await kit.connections.getEnvironment({})).environment?.id ?? "";
    expect(await a.stores.runs.list(env, { trigger: "action" })).toEqual([]);
  });

  test("a job its instance took and never settled is completed by another instance once its ack wait has passed", async () => {
    const kit = await kits.start();
    // The first instance's run waits (up to its deadline) until the second's has run: a hung process.
    const { a, id } = await hungInstance(
      kit,
      `const first = !(await nango.getMetadata()).claimed;
       if (!first) { await nango.updateMetadata({ done: true }); return { by: "second" }; }
       await nango.updateMetadata({ claimed: true });
       while (!(await nango.getMetadata()).done) await new Promise((r) => setTimeout(r, 50));
       return { by: "first" };`,
    );
    const b = await kit.instance({}, { sharedQueues: true });
    const sent = await webhooks(a, b);
    const run = await ended(kit, b, id, 20_000);
    // Taken over at attempt 2 (or later, when a loaded machine lets the test's short ack wait pass again):
    // the first attempt's end, whenever it comes, is refused by the store.
    expect(run).toMatchObject({ id, status: "succeeded", output: { by: "second" } });
    expect(run.attempt).toBeGreaterThanOrEqual(2);
    await until("the webhook", () => sent.length > 0);
    // The first instance's run ends too; its end changes nothing, and no second webhook is sent.
    await until("both instances to ask for the webhook", () =>
      kit.logs.filter((l) => l.includes("async action webhook enqueued")).length >= 2 ? true : undefined,
    );
    expect(sent.map((d) => bodyOf(d).payload.id)).toEqual([id]);
    expect((await b.stores.runs.get(run.environmentId, id))?.output).toEqual({ by: "second" });
  });

  test("a job taken more often than it may be tried ends its run failed without running it again", async () => {
    const kit = await kits.start();
    const { a, id } = await hungInstance(
      kit,
      `await nango.updateMetadata({ claimed: true });
       while (!(await nango.getMetadata()).done) await new Promise((r) => setTimeout(r, 50));
       return "late";`,
    );
    // Its second delivery is one past both X-Max-Retries + 1 and this instance's maxAttempts.
    const b = await kit.instance({ maxAttempts: 1 }, { sharedQueues: true });
    const sent = await webhooks(a, b);
    const run = await ended(kit, b, id, 20_000);
    expect(run).toMatchObject({ id, status: "failed", attempt: 1, error: { name: "ActionInterrupted" } });
    await until("the webhook", () => sent.length > 0);
    expect(bodyOf(sent[0] as DeliveryRequested).payload.id).toBe(id);
    await kit.connections.writeMetadata({
      providerConfigKey: "cal",
      connectionIds: ["alice"],
      metadata: { done: true },
      mode: MetadataWriteMode.UPDATE,
    });
    await until("the first instance's run to end", () =>
      kit.logs.filter((l) => l.includes("async action webhook enqueued")).length >= 2 ? true : undefined,
    );
    expect(await b.stores.runs.get(run.environmentId, id)).toMatchObject({ status: "failed", attempt: 1 });
  });
});
