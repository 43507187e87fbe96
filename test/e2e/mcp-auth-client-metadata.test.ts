import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { auth } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { startTestJunction, type TestJunction } from "../support/embedded-junction.ts";
import { tempDir } from "../support/temp-dir.ts";
import { consentOverHttp, MemoryOAuthProvider, UNHEARD_REDIRECT } from "./mcp-auth-kit.ts";

// Client registration by client ID metadata document: the MCP client's id is the https URL of its
// metadata, which Junction reads through the outbound address policy. The document is served by a
// local https fake; the test resolver answers the fake's names, and the fetch under the policy trusts
// the fake's certificate and connects to the address the resolver gave.
setDefaultTimeout(60_000);

const running: Array<() => unknown> = [];
afterEach(async () => {
  for (const stop of running.splice(0).reverse()) await stop();
});

const NAMES = ["client.example", "private.example"];

/** A self-signed certificate for the fake's names (openssl, in a temporary directory). */
function certificate() {
  const dir = tempDir("mcp-cimd-");
  running.push(() => dir.remove());
  const [key, cert] = [join(dir.path, "key.pem"), join(dir.path, "cert.pem")];
  const san = NAMES.map((n) => `DNS:${n}`).join(",");
  const run = Bun.spawnSync(
    ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert, "-days", "1"].concat([
      "-subj",
      "/CN=client.example",
      "-addext",
      `subjectAltName=${san}`,
    ]),
  );
  if (run.exitCode !== 0) throw new Error(`openssl: ${run.stderr}`);
  return { key: readFileSync(key, "utf8"), cert: readFileSync(cert, "utf8") };
}

/** The client's https server: documents by path, and how often each was read. */
function startDocumentServer(tls: { key: string; cert: string }, documents: Record<string, () => Response>) {
  const reads: Record<string, number> = {};
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    tls,
    fetch(req) {
      const path = new URL(req.url).pathname;
      reads[path] = (reads[path] ?? 0) + 1;
      return documents[path]?.() ?? new Response("not found", { status: 404 });
    },
  });
  running.push(() => server.stop(true));
  return { port: server.port, reads };
}

async function junctionFor(tls: { cert: string }): Promise<TestJunction> {
  const j = await startTestJunction({
    // client.example is allowed though it resolves to loopback (as an operator allows a host);
    // private.example is not.
    env: { JUNCTION_ALLOWED_PRIVATE_HOSTS: "127.0.0.1,localhost,client.example" },
    lookup: async (hostname) => (NAMES.includes(hostname) ? ["127.0.0.1"] : []),
    mcpClientMetadataFetch: (input, init) => {
      const url = new URL(input.toString());
      const host = url.hostname;
      url.hostname = "127.0.0.1";
      return fetch(url, {
        ...init,
        headers: { ...(init?.headers as Record<string, string>), host: `${host}:${url.port}` },
        tls: { ca: tls.cert, checkServerIdentity: () => undefined },
      } as RequestInit);
    },
  });
  running.push(() => j.close());
  return j;
}

const documentOf =
  (clientId: string, extra: Record<string, unknown> = {}) =>
  () =>
    Response.json({ client_id: clientId, client_name: "Docs Agent", redirect_uris: [UNHEARD_REDIRECT], ...extra });

describe("MCP front door: client ID metadata documents", () => {
  test("the SDK uses its metadata URL as client_id; Junction reads it once, names the client, and issues tokens", async () => {
    const tls = certificate();
    const docs: Record<string, () => Response> = {};
    const fake = startDocumentServer(tls, docs);
    const clientId = `https://client.example:${fake.port}/oauth/client.json`;
    docs["/oauth/client.json"] = documentOf(clientId);
    const j = await junctionFor(tls);
    const issued = await j.api("POST", "/mcp/servers", { end_user: { id: "u-alice" } });
    const mcpUrl = issued.body.data.url as string;

    const provider = new MemoryOAuthProvider(UNHEARD_REDIRECT, clientId);
    expect(await auth(provider, { serverUrl: new URL(mcpUrl) })).toBe("REDIRECT");
    expect(provider.client?.client_id).toBe(clientId);
    const authorizationUrl = provider.authorizationUrl as URL;
    const page = await fetch(authorizationUrl);
    const html = await page.text();
    expect(html).toContain('<span class="who" id="client-name">Docs Agent</span>');
    expect(html).toContain(`client.example:${fake.port}`);
    const code = (await consentOverHttp(authorizationUrl, "allow")).searchParams.get("code") ?? "";
    expect(await auth(provider, { serverUrl: new URL(mcpUrl), authorizationCode: code })).toBe("AUTHORIZED");
    const client = new Client({ name: "docs-agent", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider }));
    expect((await client.listTools()).tools).toEqual([]);
    await client.close();
    // Cached: read once for the whole flow (two authorizations, two consent pages).
    expect(fake.reads["/oauth/client.json"]).toBe(1);
  });

  test("a document too large, naming another client_id, redirecting, or on a refused address: no client", async () => {
    const tls = certificate();
    const docs: Record<string, () => Response> = {};
    const fake = startDocumentServer(tls, docs);
    const base = `https://client.example:${fake.port}`;
    docs["/big.json"] = documentOf(`${base}/big.json`, { padding: "x".repeat(6000) });
    docs["/other.json"] = documentOf(`${base}/someone-else.json`);
    docs["/moved.json"] = () => new Response(null, { status: 302, headers: { location: `${base}/other.json` } });
    docs["/private.json"] = documentOf(`https://private.example:${fake.port}/private.json`);
    const j = await junctionFor(tls);
    const issued = await j.api("POST", "/mcp/servers", { end_user: { id: "u-alice" } });
    const mcpUrl = issued.body.data.url as string;
    const cases: [string, string][] = [
      [`${base}/big.json`, "larger than 5120 bytes"],
      [`${base}/other.json`, "client_id is not the URL"],
      [`${base}/moved.json`, "answered HTTP 302"],
      [`https://private.example:${fake.port}/private.json`, "its address is not allowed"],
    ];
    for (const [clientId, reason] of cases) {
      const provider = new MemoryOAuthProvider(UNHEARD_REDIRECT, clientId);
      expect(await auth(provider, { serverUrl: new URL(mcpUrl) })).toBe("REDIRECT");
      const res = await fetch(provider.authorizationUrl as URL, { redirect: "manual" });
      expect(res.status).toBe(400);
      const html = await res.text();
      expect(html).toContain('data-code="invalid_client"');
      expect(html).toContain(reason);
    }
    // The refused address was never connected to.
    expect(fake.reads["/private.json"]).toBeUndefined();
  });
});
