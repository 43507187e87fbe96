import { afterEach } from "bun:test";
import type { ManualClock } from "@junction/platform";
import {
  type FakeUpstream,
  startFakeUpstream,
  startWebhookReceiver,
  type WebhookReceiver,
} from "../fake-upstream/index.ts";
import {
  type ApiResponse,
  startTestJunction,
  TEST_SECRET_KEY,
  type TestJunction,
} from "../support/embedded-junction.ts";
import { waitFor } from "../support/wait-for.ts";

// Shared by the scripts end-to-end tests: an embedded Junction in front of the fake upstream, with a
// calendar integration "cal" whose base URL points at the fake, and helpers to deploy scripts, make
// connections and wait for runs.

export const ALICE = "alice@example.com";
export const CAL = "cal";
export const CLIENT = { clientId: "scripts-e2e-client", clientSecret: "scripts-e2e-client-secret" };
export const CALENDAR_SCOPE = "https://www.googleapis.com/auth/calendar";

export interface ScriptsWorld {
  j: TestJunction;
  fake: FakeUpstream;
  /** Receives forwarded notifications (configured as the webhook endpoint). */
  receiver: WebhookReceiver;
  /** Upstream tokens handed to Junction: they must never show up in Junction's answers or logs. */
  secrets: string[];
  api(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<ApiResponse>;
  /** POST /scripts; throws unless 201. */
  deploy(name: string, source: string, extra?: Record<string, unknown>): Promise<any>;
  /** Imports a connection with tokens the fake issued for `email` (a new connection each time), of `endUserId` when given. */
  connect(connectionId: string, email?: string, endUserId?: string): Promise<void>;
  /** Runs matching the query (GET /scripts/runs). */
  runs(query?: Record<string, string>): Promise<any[]>;
  /** Waits until `count` runs match and none of them is still running; returns them with logs, oldest first. */
  finishedRuns(query: Record<string, string>, count: number, timeoutMs?: number): Promise<any[]>;
}

/** Starts a fresh world per test (stopped after it). */
export function useScriptsWorld() {
  const running: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const stop of running.splice(0).reverse()) await stop();
  });
  return async (
    options: { clock?: ManualClock; env?: Record<string, string>; baseUrl?: (fake: FakeUpstream) => string } = {},
  ): Promise<ScriptsWorld> => {
    const now = options.clock ? () => options.clock?.now() ?? Date.now() : undefined;
    const fake = await startFakeUpstream({ clients: [CLIENT], ...(now ? { now } : {}) });
    running.push(() => fake.stop());
    const receiver = startWebhookReceiver();
    running.push(() => receiver.stop());
    const j = await startTestJunction({ clock: options.clock, env: options.env });
    running.push(() => j.close());
    const created = await j.api("POST", "/integrations", {
      unique_key: CAL,
      provider: "google-calendar",
      credentials: {
        type: "OAUTH2",
        client_id: CLIENT.clientId,
        client_secret: CLIENT.clientSecret,
        scopes: [CALENDAR_SCOPE],
      },
      upstream_overrides: { base_url: options.baseUrl?.(fake) ?? fake.url, token_url: fake.endpoints.tokenUrl },
    });
    if (created.status !== 200 && created.status !== 201) throw new Error(`integration: ${created.text}`);
    const settings = await j.api("PUT", "/webhook-settings", { endpoints: [receiver.url] });
    if (settings.status !== 200) throw new Error(`webhook settings: ${settings.text}`);
    const secrets: string[] = [CLIENT.clientSecret, TEST_SECRET_KEY];
    const world: ScriptsWorld = {
      j,
      fake,
      receiver,
      secrets,
      api: j.api,
      async deploy(name, source, extra = {}) {
        const res = await j.api("POST", "/scripts", { provider_config_key: CAL, name, source, ...extra });
        if (res.status !== 201) throw new Error(`deploy ${name}: ${res.status} ${res.text}`);
        return res.body.data;
      },
      async connect(connectionId, email = ALICE, endUserId) {
        if (!fake.state.users.has(email)) fake.addUser({ email });
        const tokens = fake.issueTokens({ email, clientId: CLIENT.clientId, scopes: [CALENDAR_SCOPE] });
        secrets.push(tokens.accessToken, tokens.refreshToken ?? "");
        const res = await j.api("POST", "/connections", {
          provider_config_key: CAL,
          connection_id: connectionId,
          credentials: {
            type: "OAUTH2",
            access_token: tokens.accessToken,
            refresh_token: tokens.refreshToken,
            expires_at: new Date((now?.() ?? Date.now()) + tokens.expiresIn * 1000).toISOString(),
          },
          metadata: { emailAddress: email },
          ...(endUserId ? { end_user: { id: endUserId, email } } : {}),
        });
        if (res.status >= 300) throw new Error(`connection: ${res.status} ${res.text}`);
      },
      async runs(query = {}) {
        const res = await j.api("GET", `/scripts/runs?${new URLSearchParams(query)}`);
        if (res.status !== 200) throw new Error(`runs: ${res.status} ${res.text}`);
        return res.body.data;
      },
      async finishedRuns(query, count, timeoutMs = 20_000) {
        const found = await waitFor(
          `${count} finished run(s) matching ${JSON.stringify(query)}`,
          async () => {
            const runs = await world.runs(query);
            return runs.length >= count && runs.every((r) => r.status !== "running") ? runs : null;
          },
          timeoutMs,
          25,
        );
        const full = [];
        for (const run of found.reverse()) full.push((await j.api("GET", `/scripts/runs/${run.id}`)).body.data);
        return full;
      },
    };
    return world;
  };
}

/** A sync script (frequency `1d`) whose exec body is `body`. */
export const syncSource = (body: string, extra = "") =>
  `import { createSync } from "nango";\nexport default createSync({\n  frequency: "1d",${extra ? `${extra},` : ""}\n  exec: async (nango) => {\n${body}\n  },\n});\n`;

/** A lifecycle script of `event` whose exec body is `body`. */
export const onEventSource = (event: string, body: string) =>
  `import { createOnEvent } from "nango";\nexport default createOnEvent({\n  event: "${event}",\n  exec: async (nango) => {\n${body}\n  },\n});\n`;

/** Asserts that no upstream token or client secret appears in `text`. */
export function expectNoSecrets(world: ScriptsWorld, text: string): void {
  for (const secret of world.secrets.filter((s) => s.length > 8)) {
    if (text.includes(secret)) throw new Error(`a secret leaked: ${secret.slice(0, 6)}…`);
  }
}
