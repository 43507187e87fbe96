import {
  auth,
  discoverAuthorizationServerMetadata,
  type OAuthClientProvider,
  registerClient,
  startAuthorization,
} from "@modelcontextprotocol/sdk/client/auth.js";
import type {
  AuthorizationServerMetadata,
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import type { ScriptsWorld } from "./scripts-kit.ts";

// The MCP front door's tests: an MCP client's OAuth state as the SDK asks a host app to keep it, a
// loopback listener the consent redirects to, and the customer's call issuing an MCP URL.

/** A host app's OAuth state for one MCP server, in memory; the authorization URL is kept for a browser to open. */
export class MemoryOAuthProvider implements OAuthClientProvider {
  client: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = "";
  authorizationUrl: URL | undefined;

  constructor(
    readonly redirectUrl: string,
    readonly clientMetadataUrl?: string,
  ) {}

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "Junction e2e agent",
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  state() {
    return "state-123";
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

/** A native client's loopback listener: records each redirect it receives. */
export function startCallbackListener() {
  const received: URL[] = [];
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(req) {
      // Only the redirects: the browser also asks this origin for /favicon.ico once the page is shown.
      const url = new URL(req.url);
      if (url.pathname !== "/callback") return new Response(null, { status: 404 });
      received.push(url);
      return new Response("<p id=done>You can close this window.</p>", { headers: { "content-type": "text/html" } });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}/callback`,
    received,
    stop: () => server.stop(true),
  };
}

/** POST /mcp/servers: an MCP URL for `endUserId`; its id and URL. */
export async function issueMcpUrl(
  w: ScriptsWorld,
  endUserId: string,
  allowed?: string[],
): Promise<{ id: string; url: string }> {
  const res = await w.api("POST", "/mcp/servers", {
    end_user: { id: endUserId, display_name: `User ${endUserId}` },
    ...(allowed ? { allowed_integrations: allowed } : {}),
  });
  if (res.status !== 201) throw new Error(`POST /mcp/servers: ${res.status} ${res.text}`);
  return res.body.data;
}

/**
 * Answers the consent page over HTTP (as the browser's form would): follows the authorization URL to
 * the page, posts `decision`, and returns where Junction sends the browser back.
 */
export async function consentOverHttp(
  authorizationUrl: URL,
  decision: "allow" | "deny",
  fetch: (input: string | URL, init?: RequestInit) => Promise<Response> = globalThis.fetch,
): Promise<URL> {
  const toPage = await fetch(authorizationUrl, { redirect: "manual" });
  const page = toPage.headers.get("location");
  if (toPage.status !== 302 || !page) throw new Error(`authorize: ${toPage.status} ${await toPage.text()}`);
  const html = await (await fetch(page)).text();
  const request = /name="request" value="([^"]+)"/.exec(html)?.[1];
  if (!request) throw new Error(`no consent form: ${html.slice(0, 300)}`);
  const answer = await fetch(new URL("/connect/mcp/consent", page), {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ request, decision }),
    redirect: "manual",
  });
  const location = answer.headers.get("location");
  if (answer.status !== 303 || !location) throw new Error(`consent: ${answer.status} ${await answer.text()}`);
  return new URL(location);
}

/** A loopback redirect no listener needs to hear: the consent is answered over HTTP. */
export const UNHEARD_REDIRECT = "http://127.0.0.1:9/callback";

/**
 * The SDK's `auth` through registration and the authorization redirect, the consent answered over
 * HTTP, then `auth` again with the code: the provider then holds tokens for the MCP URL.
 */
export async function authorizeOverHttp(
  mcpUrl: string,
  provider: MemoryOAuthProvider,
  fetchFn: (input: string | URL, init?: RequestInit) => Promise<Response> = fetch,
): Promise<OAuthTokens> {
  const serverUrl = new URL(mcpUrl);
  if ((await auth(provider, { serverUrl, fetchFn })) !== "REDIRECT")
    throw new Error("expected an authorization redirect");
  if (!provider.authorizationUrl) throw new Error("no authorization URL");
  const back = await consentOverHttp(provider.authorizationUrl, "allow", fetchFn);
  const code = back.searchParams.get("code");
  if (!code) throw new Error(`no code: ${back}`);
  const authorized = await auth(provider, { serverUrl, authorizationCode: code, fetchFn });
  if (authorized !== "AUTHORIZED") throw new Error("not authorized");
  if (!provider.saved) throw new Error("no tokens saved");
  return provider.saved;
}

/** A raw MCP initialize request, with `token` as the bearer when given (for what the SDK would not send). */
export function initializeRequest(token: string | undefined): RequestInit {
  return {
    method: "POST",
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
    }),
  };
}

/** A registered client and an authorization code it may exchange, with its verifier. */
export async function codeFor(w: ScriptsWorld, mcpUrl: string) {
  const metadata = (await discoverAuthorizationServerMetadata(w.j.baseUrl)) as AuthorizationServerMetadata;
  const client = await registerClient(w.j.baseUrl, {
    metadata,
    clientMetadata: { client_name: "bad-input", redirect_uris: [UNHEARD_REDIRECT] },
  });
  const { authorizationUrl, codeVerifier } = await startAuthorization(w.j.baseUrl, {
    metadata,
    clientInformation: client,
    redirectUrl: UNHEARD_REDIRECT,
    resource: mcpUrl,
  });
  const back = await consentOverHttp(authorizationUrl, "allow");
  return { metadata, client, codeVerifier, code: back.searchParams.get("code") ?? "" };
}
