import { afterEach } from "bun:test";
import { ManualClock } from "@junction/platform";
import { type FakeUpstream, type FakeUpstreamOptions, startFakeUpstream } from "../fake-upstream/index.ts";
import { startTestJunction, type TestJunction } from "../support/embedded-junction.ts";
import { waitFor } from "../support/wait-for.ts";

// Shared by the OAuth end-to-end tests: the embedded Junction and the fake upstream on one manual clock,
// and the steps a customer backend and a browser take.

export const CLIENT = { clientId: "junction-e2e.apps.fake", clientSecret: "e2e-client-secret-do-not-log" };
export const CALENDAR_SCOPE = "https://www.googleapis.com/auth/calendar";

/** The body of POST /integrations for a Google Calendar integration `key` whose upstream is `fake`. */
export function calendarIntegration(fake: FakeUpstream, key: string, client = CLIENT) {
  return {
    unique_key: key,
    provider: "google-calendar",
    credentials: {
      type: "OAUTH2",
      client_id: client.clientId,
      client_secret: client.clientSecret,
      scopes: ["openid", "email", CALENDAR_SCOPE],
    },
    upstream_overrides: {
      base_url: fake.url,
      authorization_url: fake.endpoints.authorizationUrl,
      token_url: fake.endpoints.tokenUrl,
    },
  };
}

export interface OAuthWorld {
  clock: ManualClock;
  fake: FakeUpstream;
  j: TestJunction;
  /** Creates a calendar integration whose upstream URLs point at the fake. */
  integration(key?: string): Promise<void>;
  /** POST /connect/sessions; returns the token. */
  session(body?: Record<string, unknown>): Promise<string>;
  /** GET /oauth/connect/{key} without following the redirect. */
  start(key: string, token: string, query?: string, accept?: string): Promise<Response>;
  /** Plays the browser from the session to the callback URL the upstream redirects to. */
  authorize(key?: string, token?: string): Promise<URL>;
  /** GETs the callback like the browser does; returns status, the page's code and its text. */
  callback(url: URL | string): Promise<{ status: number; code: string; html: string; headers: Headers }>;
  /** Connection ids of an integration. */
  connectionIds(key?: string): Promise<string[]>;
}

/** Starts a fresh world per test and stops it after. */
export function useOAuthWorld() {
  const running: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const stop of running.splice(0).reverse()) await stop();
  });
  return async (
    options: {
      /** Junction's environment; a function gets the running fake (to point test credentials at it). */
      env?: Record<string, string> | ((fake: FakeUpstream) => Record<string, string>);
      fake?: FakeUpstreamOptions;
      /** Where the manual clock starts (default: ManualClock's fixed date). Scripts' `Date` is real time. */
      clockStartMs?: number;
    } = {},
  ): Promise<OAuthWorld> => {
    const clock = new ManualClock(options.clockStartMs);
    const fake = await startFakeUpstream({ clients: [CLIENT], now: () => clock.now(), ...options.fake });
    running.push(() => fake.stop());
    const env = typeof options.env === "function" ? options.env(fake) : options.env;
    const j = await startTestJunction({ clock, env });
    running.push(() => j.close());
    const world: OAuthWorld = {
      clock,
      fake,
      j,
      async integration(key = "cal") {
        const res = await j.api("POST", "/integrations", calendarIntegration(fake, key));
        if (res.status !== 200) throw new Error(`integration: ${res.status} ${res.text}`);
      },
      async session(body = { end_user: { id: "user-1", email: "alice@example.com" }, allowed_integrations: ["cal"] }) {
        const res = await j.api("POST", "/connect/sessions", body);
        if (res.status !== 201) throw new Error(`session: ${res.status} ${res.text}`);
        return res.body.data.token as string;
      },
      start(key, token, query = "", accept = "application/json") {
        return fetch(
          `${j.url}/oauth/connect/${encodeURIComponent(key)}?connect_session_token=${encodeURIComponent(token)}${query}`,
          { redirect: "manual", headers: { accept } },
        );
      },
      async authorize(key = "cal", token) {
        const res = await world.start(key, token ?? (await world.session()));
        const location = res.headers.get("location");
        if (res.status !== 302 || !location) throw new Error(`/oauth/connect: ${res.status} ${await res.text()}`);
        return fake.authorize(location);
      },
      async callback(url) {
        const target = new URL(url.toString());
        const res = await fetch(`${j.url}${target.pathname}${target.search}`, { headers: { accept: "text/html" } });
        const html = await res.text();
        const code = /<span id="code">([^<]*)<\/span>/.exec(html)?.[1] ?? "";
        return { status: res.status, code, html, headers: res.headers };
      },
      async connectionIds(key = "cal") {
        const res = await j.api("GET", `/connections?integrationId=${encodeURIComponent(key)}`);
        return (res.body.connections as { connection_id: string }[]).map((c) => c.connection_id);
      },
    };
    return world;
  };
}

/** Creates the calendar integration and authorizes one user through the browser flow; its connection id. */
export async function connectedId(w: OAuthWorld): Promise<string> {
  await w.integration();
  const { code } = await w.callback(await w.authorize());
  if (code !== "connected") throw new Error(`authorization ended with ${code}`);
  const [id] = await w.connectionIds();
  return id as string;
}

/** GET through the proxy: the path the customer's app uses, which reads credentials through the refresher. */
export function proxyGet(w: OAuthWorld, id: string) {
  return w.j.api("GET", "/proxy/calendar/v3/users/me/calendarList/primary", undefined, {
    "provider-config-key": "cal",
    "connection-id": id,
  });
}

/** The user revokes Junction's access upstream and the access token expires; the credentials as they were. */
export async function revokeAndExpire(w: OAuthWorld, id: string) {
  const { credentials } = await w.j.clients.connection.getCredentials({ providerConfigKey: "cal", connectionId: id });
  w.fake.revokeRefreshToken(credentials?.refreshToken as string);
  await w.clock.advance(3600_000);
  return credentials;
}

/** An API key integration `key` of an operator's provider. */
export async function apiKeyIntegration(w: OAuthWorld, key: string): Promise<void> {
  const defined = await w.j.api("POST", "/providers", {
    name: `${key}-provider`,
    displayName: key,
    authMode: "API_KEY",
    docsUrl: "https://docs.example.test/credentials",
    baseUrl: `${w.fake.url}/${key}`,
    apiKey: { in: "header", name: "x-api-key", prefix: "" },
    scopes: [],
    defaultScopes: [],
  });
  if (defined.status !== 201) throw new Error(`provider: ${defined.status} ${defined.text}`);
  const integ = await w.j.api("POST", "/integrations", { unique_key: key, provider: `${key}-provider` });
  if (integ.status !== 200) throw new Error(`integration: ${integ.status} ${integ.text}`);
}

/** The authorization operations, newest first, once there are `n`. */
export async function authorizations(j: TestJunction, n: number): Promise<any[]> {
  return waitFor(`${n} authorization operations`, async () => {
    const res = await j.api("GET", "/logs/operations?kind=authorization&limit=500");
    return res.body.data?.length >= n ? res.body.data : null;
  });
}
