import { afterEach, describe, expect, test } from "bun:test";
import { hashData } from "../../records/prepare-records.ts";
import { noSandbox } from "../../../testing/record-test-kit.ts";
import { type ServiceKit, startServiceKit } from "../../../testing/service-test-kit.ts";
import { enqueueScriptJob } from "./script-jobs.ts";

describe("a new connection starts without records", () => {
  let kit: ServiceKit | undefined;
  afterEach(async () => {
    await kit?.close();
    kit = undefined;
  });

  test("records left by a deleted connection of the same id are removed when the new one's creation job runs", async () => {
    kit = await startServiceKit(noSandbox);
    const a = await kit.instance();
    const env = (await kit.connections.getEnvironment({})).environment?.id as string;
    const alice = { environmentId: env, providerConfigKey: "cal", connectionId: "alice" };
    const bob = { ...alice, connectionId: "bob" };
    const data = '{"title":"old"}';
    for (const who of [alice, bob]) {
      await a.stores.records.save(
        { ...who, model: "Event", variant: "base" },
        [{ id: "1", data, hash: hashData(data) }],
        {
          now: 1,
        },
      );
    }
    await a.stores.records.saveCheckpoint({ ...alice, syncName: "events", variant: "base" }, { page: 9 }, 1);
    await enqueueScriptJob(a.bus, { job: { case: "connectionCreated", value: { ...alice, atMs: 2n } } }, "created:1");
    for (let i = 0; i < 200 && (await a.stores.records.models(alice)).length > 0; i++) {
      await new Promise((r) => setImmediate(r));
    }
    expect(await a.stores.records.models(alice)).toEqual([]);
    expect(await a.stores.records.getCheckpoint({ ...alice, syncName: "events", variant: "base" })).toBeNull();
    expect((await a.stores.records.models(bob)).map((m) => m.count)).toEqual([1]);
  });
});
