import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildForNode } from "@junction/client/build-for-node";
import { startTestJunction, TEST_SECRET_KEY, type TestJunction } from "../support/embedded-junction.ts";

// Inside the client package: Node resolves the bundle's imports (Connect, protobuf-es) from its node_modules.
const OUT = join(import.meta.dir, "../../packages/client/.tmp", `node-${process.pid}`);

/** What the script below prints: one call that works and one refused with a wrong key. */
const SCRIPT = `
import { createJunctionClient, junctionError } from "./index.js";
const [url, key] = process.argv.slice(2);
const { integrations } = await createJunctionClient(url, key).connection.listIntegrations({});
let refused;
try {
  await createJunctionClient(url, "jct_sk_wrong_0000000000000000000000").connection.listIntegrations({});
} catch (err) {
  refused = junctionError(err);
}
console.log(JSON.stringify({ keys: integrations.map((i) => i.uniqueKey), refused: refused?.code }));
`;

let j: TestJunction;
beforeAll(async () => {
  j = await startTestJunction();
  mkdirSync(OUT, { recursive: true });
});
afterAll(async () => {
  await j.close();
  rmSync(OUT, { recursive: true, force: true });
});

describe("@junction/client from Node", () => {
  test("the bundle for Node calls the gateway and reads Junction's codes", async () => {
    const node = Bun.which("node");
    if (!node) throw new Error("this test runs the client under Node: install nodejs (scripts/ensure-tools.sh does)");
    await j.api("POST", "/integrations", {
      unique_key: "node-cal",
      provider: "google-calendar",
      credentials: { type: "OAUTH2", client_id: "c", client_secret: "s" },
    });
    await buildForNode(OUT);
    writeFileSync(join(OUT, "script.mjs"), SCRIPT);
    const run = Bun.spawn([node, join(OUT, "script.mjs"), j.url, TEST_SECRET_KEY], { stdout: "pipe", stderr: "pipe" });
    const [out, err, code] = await Promise.all([
      new Response(run.stdout).text(),
      new Response(run.stderr).text(),
      run.exited,
    ]);
    expect(err).toBe("");
    expect(code).toBe(0);
    expect(JSON.parse(out)).toEqual({ keys: ["node-cal"], refused: "unknown_account" });
  });
});
