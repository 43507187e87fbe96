import { afterEach, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { startTestJunction, TEST_SECRET_KEY, type TestJunction } from "../support/embedded-junction.ts";

// Issue 23, done-when: the README's quick start shows a non-Google provider (GitHub against the sandbox
// upstream's generic OAuth fake). This runs its commands as written, in bash: `npm start` becomes an embedded
// Junction with the same setting, the browser step a fetch of the connect flow.

const README = readFileSync(join(import.meta.dir, "../../README.md"), "utf8");

/** The first ```sh block of the "A first integration" section. */
function quickStart(): string[] {
  const section = README.slice(README.indexOf("## A first integration"));
  const block = /```sh\n([\s\S]*?)```/.exec(section.slice(0, section.indexOf("\n## ", 5)))?.[1] ?? "";
  return block.split("\n").filter((l) => l.trim() !== "");
}

let j: TestJunction | undefined;
afterEach(async () => {
  await j?.close();
  j = undefined;
});

/** Runs one README line in bash with $KEY and the README's `H` array, against this Junction (asynchronously: it answers in this process). */
async function run(line: string, junction: TestJunction, h: string): Promise<string> {
  const script = `${h}\n${line.replaceAll("localhost:3003", new URL(junction.url).host)}`;
  const child = Bun.spawn(["bash", "-c", script], {
    env: { ...process.env, KEY: TEST_SECRET_KEY },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  if (code !== 0) throw new Error(`${line}: ${err}`);
  return out;
}

describe("README quick start (GitHub on the sandbox upstream)", () => {
  test("its commands create the integration, connect in the browser and proxy GitHub's GET /user", async () => {
    const lines = quickStart();
    expect(lines[0]).toStartWith("JUNCTION_SANDBOX_UPSTREAM=true npm start");
    const h = lines.find((l) => l.startsWith("H=(")) as string;
    expect(h).toBeDefined();
    j = await startTestJunction({ env: { JUNCTION_SANDBOX_UPSTREAM: "true" } });
    const junction = j;

    let connectionId = "";
    let lastOutput = "";
    for (const line of lines.filter((l) => l.startsWith("curl") || l.startsWith("# open"))) {
      if (line.startsWith("# open")) {
        // The browser: the session's connect flow for the integration, redirects followed to the callback page.
        const token = JSON.parse(lastOutput).data.token as string;
        const page = await fetch(`${junction.url}/oauth/connect/github?connect_session_token=${token}`);
        expect(await page.text()).toContain('<span id="code">connected</span>');
        continue;
      }
      lastOutput = await run(line.replaceAll("<connection_id>", connectionId), junction, h);
      const answer = JSON.parse(lastOutput);
      if (answer.connections) connectionId = answer.connections[0].connection_id;
      expect(answer.error).toBeUndefined();
    }
    expect(connectionId).not.toBe("");
    // The last command proxied GitHub's GET /user with the connection's token.
    expect(JSON.parse(lastOutput)).toEqual({ login: "user", id: "acct-42", email: "user@example.com" });
  });
});
