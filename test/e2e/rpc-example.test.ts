import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { startTestJunction, TEST_SECRET_KEY, type TestJunction } from "../support/embedded-junction.ts";

const ROOT = join(import.meta.dir, "..", "..");
const EXAMPLE = "packages/client/examples/tag-connections.ts";

let j: TestJunction;
beforeAll(async () => {
  j = await startTestJunction();
  await j.api("POST", "/integrations", {
    unique_key: "cal",
    provider: "google-calendar",
    credentials: { type: "OAUTH2", client_id: "client-abc", client_secret: "very-secret-client-secret" },
  });
  const imported = await j.api("POST", "/connections", {
    provider_config_key: "cal",
    connection_id: "alice",
    credentials: { type: "OAUTH2", access_token: "alice-access-token", expires_at: 1_900_000_000_000 },
  });
  expect(imported.status).toBe(200);
});
afterAll(async () => {
  await j.close();
});

describe("docs/rpc.md's example", () => {
  test("is the example file, word for word", () => {
    const doc = readFileSync(join(ROOT, "docs/rpc.md"), "utf8");
    const block = /```ts\n([\s\S]*?)```/.exec(doc)?.[1];
    expect(block).toBe(readFileSync(join(ROOT, EXAMPLE), "utf8"));
  });

  test("runs as the docs say, from the repository root, and prints what they show", async () => {
    const proc = Bun.spawn(["bun", EXAMPLE, "cal"], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? "", JUNCTION_URL: j.url, JUNCTION_SECRET_KEY: TEST_SECRET_KEY },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [out, err] = [await new Response(proc.stdout).text(), await new Response(proc.stderr).text()];
    expect(await proc.exited).toBe(0);
    expect(err).toBe("");
    // The output the docs show under the example.
    const doc = readFileSync(join(ROOT, "docs/rpc.md"), "utf8");
    const shown = /What it prints[^\n]*\n\n```\n([\s\S]*?)```/.exec(doc)?.[1];
    expect(out).toBe(shown as string);
    const conn = await j.api("GET", "/connection/alice?provider_config_key=cal");
    expect(conn.body.metadata).toEqual({ team: "blue" });
  });
});
