import { afterEach, expect, setDefaultTimeout, test } from "bun:test";
import { startTestJunction, type TestJunction } from "../support/embedded-junction.ts";
import { tempDir } from "../support/temp-dir.ts";
import { authorizeOverHttp, initializeRequest, MemoryOAuthProvider, UNHEARD_REDIRECT } from "./mcp-auth-kit.ts";

// The embedded Junction keeps MCP URLs, clients and tokens in its SQLite file: an end user's client
// stays authorized across a restart. Both runs have one public base URL (as behind a proxy); requests
// go to whichever port the run listens on.
setDefaultTimeout(60_000);

const BASE = "http://mcp.test";
const running: Array<() => unknown> = [];
afterEach(async () => {
  for (const stop of running.splice(0).reverse()) await stop();
});

/** fetch that sends the public base URL's requests to the running Junction. */
const via = (j: TestJunction) => (input: string | URL, init?: RequestInit) =>
  fetch(String(input).replace(BASE, j.url), init);

const initialize = (j: TestJunction, url: string, token: string) => via(j)(url, initializeRequest(token));

test("an MCP client's tokens and the MCP URL outlive a restart of the embedded Junction", async () => {
  const dir = tempDir("mcp-restart-");
  running.push(() => dir.remove());
  const env = { JUNCTION_BASE_URL: BASE };
  const first = await startTestJunction({ dataDir: dir.path, env });
  const issued = await first.api("POST", "/mcp/servers", { end_user: { id: "u-alice" } });
  const url = issued.body.data.url as string;
  expect(url.startsWith(`${BASE}/mcp/u/`)).toBe(true);
  const provider = new MemoryOAuthProvider(UNHEARD_REDIRECT);
  const tokens = await authorizeOverHttp(url, provider, via(first));
  expect((await initialize(first, url, tokens.access_token)).status).toBe(200);
  await first.close({ keepData: true });

  const second = await startTestJunction({ dataDir: dir.path, env });
  running.push(() => second.close({ keepData: true }));
  expect((await second.api("GET", `/mcp/servers/${issued.body.data.id}`)).body.data.end_user.id).toBe("u-alice");
  expect((await initialize(second, url, tokens.access_token)).status).toBe(200);
  // Revoked after the restart: refused.
  expect((await second.api("DELETE", `/mcp/servers/${issued.body.data.id}`)).status).toBe(200);
  expect((await initialize(second, url, tokens.access_token)).status).toBe(401);
});
