import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { join } from "node:path";
import { freePort } from "@junction/platform/testing/free-port";
import { type JunctionProcess, startJunctionProcess } from "../support/junction-process.ts";
import { tempDir } from "../support/temp-dir.ts";
import { waitFor } from "../support/wait-for.ts";

setDefaultTimeout(60_000);

const data = tempDir();
const running: JunctionProcess[] = [];
afterAll(async () => {
  for (const p of running) await p.stop();
  data.remove();
});

/** `junction start` on the test's data dir, as `npm start` runs it; resolves once it listens. */
async function start(name: string): Promise<JunctionProcess> {
  const port = await freePort();
  const junction = startJunctionProcess(name, ["start"], {
    PORT: String(port),
    JUNCTION_BASE_URL: `http://127.0.0.1:${port}`,
    JUNCTION_DATA_DIR: data.path,
  });
  running.push(junction);
  await waitFor(`${name} to listen`, () => junction.output().includes("Junction is listening on"), 30_000);
  return junction;
}

describe("npm start and the secret key", () => {
  test("the first start prints a key once; a later start says where keys are kept and how to add one", async () => {
    const first = await start("first");
    const key = /jct_sk_\S+/.exec(first.output())?.[0];
    expect(key).toBeDefined();
    expect(first.output()).not.toContain("Lost it?");
    await first.stop();

    const second = await start("second");
    const out = second.output();
    expect(out).not.toContain(key as string);
    expect(out).not.toContain("shown only this once");
    expect(out).toContain(`kept in ${join(data.path, "junction.sqlite")}`);
    expect(out).toContain("Lost it? Start with JUNCTION_SECRET_KEY=");
    await second.stop();
  });
});
