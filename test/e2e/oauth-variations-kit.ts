import { afterEach } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ManualClock } from "@junction/platform";
import {
  type AuthorizationServerBehaviour,
  type FakeAuthorizationServer,
  startFakeAuthorizationServer,
} from "@junction/providers/fake-authorization-server";
import { startTestJunction, type TestJunction } from "../support/embedded-junction.ts";
import { tempDir } from "../support/temp-dir.ts";

// Shared by the OAuth variation tests: a provider defined as data in the data
// directory, pointing at a configurable fake authorization server; an embedded Junction on the same clock.

export const KEY = "acme";
export const PROVIDER = "acme-variant";
export const SCOPES = ["read", "write"];

export interface VariationWorld {
  clock: ManualClock;
  auth: FakeAuthorizationServer;
  j: TestJunction;
  /** POST /connect/sessions for the integration; `connectionConfig` as the session's defaults. */
  session(connectionConfig?: Record<string, unknown>): Promise<string>;
  /** GET /oauth/connect without following the redirect. */
  start(token: string): Promise<Response>;
  /** Session → authorization → consent at the fake → callback; the page's code. */
  connect(connectionConfig?: Record<string, unknown>): Promise<{ status: number; code: string; html: string }>;
  connectionIds(): Promise<string[]>;
  /** The stored credentials of a connection (GetCredentials: refreshed first when due). */
  credentials(
    id: string,
    forceRefresh?: boolean,
  ): Promise<{ accessToken: string; refreshToken: string; expiresAtMs: bigint }>;
  /** GET {base}/api/echo through the proxy: what the upstream received. */
  proxyEcho(id: string): Promise<{ status: number; body: any }>;
}

/** The definition of the provider under test, with the fake's URLs; `over` replaces fields. */
export function definitionFor(auth: FakeAuthorizationServer, over: Record<string, unknown> = {}) {
  return {
    name: PROVIDER,
    displayName: "Acme Variant",
    authMode: "OAUTH2",
    docsUrl: "https://docs.acme.test/oauth",
    baseUrl: `${auth.url}/api`,
    authorizationUrl: `${auth.url}/oauth/authorize`,
    tokenUrl: `${auth.url}/oauth/token`,
    scopes: SCOPES.map((name) => ({ name, description: `${name} access`, sensitivity: "basic" })),
    defaultScopes: ["read"],
    ...over,
  };
}

/** Starts a fresh world per test (fake, definition file, Junction, integration) and stops it after. */
export function useVariationWorld() {
  const running: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const stop of running.splice(0).reverse()) await stop();
  });
  return async (
    options: {
      behaviour?: Partial<AuthorizationServerBehaviour>;
      /** Fields of the definition over the plain one (URLs may use the fake's `url`). */
      definition?: (auth: FakeAuthorizationServer) => Record<string, unknown>;
      env?: Record<string, string>;
      /** The integration's credentials in POST /integrations; null for none (an API_KEY or BASIC provider). */
      integrationCredentials?: Record<string, unknown> | null;
    } = {},
  ): Promise<VariationWorld> => {
    const clock = new ManualClock();
    const auth = startFakeAuthorizationServer({ now: () => clock.now(), behaviour: options.behaviour });
    running.push(() => auth.stop());
    const dir = tempDir();
    running.push(() => dir.remove());
    mkdirSync(join(dir.path, "providers"));
    const definition = definitionFor(auth, options.definition?.(auth));
    writeFileSync(join(dir.path, "providers", `${PROVIDER}.json`), JSON.stringify(definition));
    const j = await startTestJunction({ clock, dataDir: dir.path, env: options.env });
    running.push(() => j.close());
    const credentials =
      options.integrationCredentials === undefined
        ? {
            type: "OAUTH2",
            client_id: auth.behaviour.clientId,
            client_secret: auth.behaviour.clientSecret,
            scopes: SCOPES,
          }
        : options.integrationCredentials;
    const created = await j.api("POST", "/integrations", {
      unique_key: KEY,
      provider: PROVIDER,
      ...(credentials ? { credentials } : {}),
    });
    if (created.status !== 200) throw new Error(`integration: ${created.status} ${created.text}`);
    const world: VariationWorld = {
      clock,
      auth,
      j,
      async session(connectionConfig) {
        const res = await j.api("POST", "/connect/sessions", {
          end_user: { id: "user-1", email: "user@example.com" },
          allowed_integrations: [KEY],
          ...(connectionConfig
            ? { integrations_config_defaults: { [KEY]: { connection_config: connectionConfig } } }
            : {}),
        });
        if (res.status !== 201) throw new Error(`session: ${res.status} ${res.text}`);
        return res.body.data.token as string;
      },
      start(token) {
        return fetch(`${j.url}/oauth/connect/${KEY}?connect_session_token=${encodeURIComponent(token)}`, {
          redirect: "manual",
          headers: { accept: "application/json" },
        });
      },
      async connect(connectionConfig) {
        const res = await world.start(await world.session(connectionConfig));
        const location = res.headers.get("location");
        if (res.status !== 302 || !location) throw new Error(`/oauth/connect: ${res.status} ${await res.text()}`);
        const callback = await auth.authorize(location);
        const page = await fetch(`${j.url}${callback.pathname}${callback.search}`, {
          headers: { accept: "text/html" },
        });
        const html = await page.text();
        return { status: page.status, code: /<span id="code">([^<]*)<\/span>/.exec(html)?.[1] ?? "", html };
      },
      async connectionIds() {
        const res = await j.api("GET", `/connections?integrationId=${KEY}`);
        return (res.body.connections as { connection_id: string }[]).map((c) => c.connection_id);
      },
      async credentials(id, forceRefresh = false) {
        const res = await j.clients.connection.getCredentials({
          providerConfigKey: KEY,
          connectionId: id,
          forceRefresh,
        });
        const c = res.credentials;
        if (!c) throw new Error("no credentials");
        return { accessToken: c.accessToken, refreshToken: c.refreshToken, expiresAtMs: c.expiresAtMs };
      },
      async proxyEcho(id) {
        const res = await j.api("GET", "/proxy/echo", undefined, { "provider-config-key": KEY, "connection-id": id });
        return { status: res.status, body: res.body };
      },
    };
    return world;
  };
}

/** Connects one user and returns the connection id; throws when the callback did not say connected. */
export async function connectedId(w: VariationWorld, connectionConfig?: Record<string, unknown>): Promise<string> {
  const result = await w.connect(connectionConfig);
  if (result.code !== "connected") throw new Error(`authorization ended with ${result.code}: ${result.html}`);
  const [id] = await w.connectionIds();
  return id as string;
}
