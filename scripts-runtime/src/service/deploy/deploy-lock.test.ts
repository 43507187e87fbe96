import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ScriptKind } from "@junction/contracts/scripts/v1/scripts_service_pb";
import { fromConnectError } from "@junction/platform";
import { ScriptRuntime } from "../../runtime/script-runtime.ts";
import { startServiceKit } from "../../../testing/service-test-kit.ts";

setDefaultTimeout(60_000);

const ACTION = readFileSync(join(import.meta.dir, "../../compile/testing/nango-cli-action.cjs.txt"), "utf8");
const SYNC = 'export default createSync({ frequency: "every day", exec: async (nango) => { nango.log("ran"); } });';

/** A runtime whose bundle checks wait for `release`: a deploy held in the middle, on purpose. */
function gatedRuntime(runtime: ScriptRuntime) {
  let entered = false;
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const gated = new Proxy(runtime, {
    get(target, prop) {
      if (prop === "validateBundle") {
        return async (js: string, filename: string) => {
          entered = true;
          await gate;
          return target.validateBundle(js, filename);
        };
      }
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { runtime: gated, entered: () => entered, release: () => release() };
}

async function refusal(p: Promise<unknown>) {
  try {
    await p;
  } catch (err) {
    return fromConnectError(err).code;
  }
  return "not refused";
}

describe("deploys of an environment are serialised", () => {
  test("while `nango deploy` is in progress, a second one, POST /scripts and a removal get concurrent_deployment; after it, they go through", async () => {
    const real = await ScriptRuntime.start({ poolSize: 1 });
    const gated = gatedRuntime(real);
    const kit = await startServiceKit(async () => gated.runtime);
    try {
      const a = await kit.instance();
      const b = await kit.instance(); // a second process on the same store
      await a.client.deployScript({ providerConfigKey: "cal", name: "daily", source: SYNC });
      const bundle = { providerConfigKey: "cal", name: "create-ticket", kind: ScriptKind.ACTION, bundle: ACTION };
      const first = a.client.deployBundles({ mode: "all", bundles: [bundle] });
      for (let i = 0; !gated.entered(); i++) {
        if (i > 500) throw new Error("the first deploy never checked its bundle");
        await Bun.sleep(10);
      }
      expect(await refusal(b.client.deployBundles({ mode: "single", bundles: [bundle] }))).toBe(
        "concurrent_deployment",
      );
      expect(await refusal(a.client.deployScript({ providerConfigKey: "cal", name: "other", source: SYNC }))).toBe(
        "concurrent_deployment",
      );
      expect(await refusal(b.client.removeScript({ providerConfigKey: "cal", name: "daily" }))).toBe(
        "concurrent_deployment",
      );
      // A confirmation (dry run) changes nothing and is answered meanwhile.
      const plan = await b.client.deployBundles({ mode: "all", bundles: [bundle], dryRun: true });
      expect(plan.removed.map((p) => p.name)).toEqual(["daily"]);

      gated.release();
      const done = await first;
      expect(done.deployed.map((v) => v.name)).toEqual(["create-ticket"]);
      expect((await a.client.listScripts({})).scripts.map((s) => s.latest?.name)).toEqual(["create-ticket"]);
      await b.client.deployScript({ providerConfigKey: "cal", name: "other", source: SYNC });
      expect((await b.client.listScripts({})).scripts.map((s) => s.latest?.name).sort()).toEqual([
        "create-ticket",
        "other",
      ]);
    } finally {
      await kit.close();
      await real.close();
    }
  });
});
