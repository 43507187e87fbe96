import { afterEach } from "bun:test";
import {
  type FakeUpstream,
  type FakeUpstreamOptions,
  pkceChallenge,
  startFakeUpstream,
  startWebhookReceiver,
  type WebhookReceiver,
} from "./index.ts";

// Shared by this folder's tests: a client registered with the fake, and the calls Junction would make.

export const REDIRECT_URI = "http://127.0.0.1:9/oauth/callback";
export const CLIENT = {
  clientId: "junction-test.apps.fake",
  clientSecret: "fake-secret",
  redirectUris: [REDIRECT_URI],
};
export const CALENDAR_SCOPE = "https://www.googleapis.com/auth/calendar";
export const VERIFIER = "a-verifier-that-is-long-enough-to-satisfy-rfc-7636-xxxxxxxxxxxx";
export const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Starts fakes and webhook receivers for one test file and stops them after each test.
 * Call once at the top level of the file.
 */
export function useFakeUpstreams() {
  const running: Array<{ stop(): Promise<void> }> = [];
  afterEach(async () => {
    for (const server of running.splice(0)) await server.stop();
  });
  return {
    async start(options: FakeUpstreamOptions = {}): Promise<FakeUpstream> {
      const fake = await startFakeUpstream({ clients: [CLIENT], ...options });
      running.push(fake);
      return fake;
    },
    receiver(): WebhookReceiver {
      const started = startWebhookReceiver();
      running.push(started);
      return started;
    },
  };
}

/** A clock tests move by hand. */
export function manualClock(start = Date.UTC(2026, 10, 21, 12)) {
  let now = start;
  return {
    now: () => now,
    advance(ms: number) {
      now += ms;
    },
  };
}

export function authorizationUrl(fake: FakeUpstream, overrides: Record<string, string> = {}): string {
  const params = new URLSearchParams({
    client_id: CLIENT.clientId,
    redirect_uri: REDIRECT_URI,
    response_type: "code",
    scope: `openid email ${CALENDAR_SCOPE}`,
    state: "state-123",
    code_challenge: pkceChallenge(VERIFIER),
    code_challenge_method: "S256",
    access_type: "offline",
    prompt: "consent",
    ...overrides,
  });
  return `${fake.endpoints.authorizationUrl}?${params}`;
}

export async function codeFor(fake: FakeUpstream, overrides: Record<string, string> = {}): Promise<string> {
  const callback = await fake.authorize(authorizationUrl(fake, overrides));
  return callback.searchParams.get("code") ?? "";
}

export function postToken(
  fake: FakeUpstream,
  form: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(fake.endpoints.tokenUrl, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams(form),
  });
}

export function exchange(fake: FakeUpstream, code: string, verifier = VERIFIER): Promise<Response> {
  return postToken(fake, {
    grant_type: "authorization_code",
    code,
    redirect_uri: REDIRECT_URI,
    code_verifier: verifier,
    client_id: CLIENT.clientId,
    client_secret: CLIENT.clientSecret,
  });
}

export function refresh(fake: FakeUpstream, refreshToken: string): Promise<Response> {
  return postToken(fake, {
    grant_type: "refresh_token",
    refresh_token: refreshToken,
    client_id: CLIENT.clientId,
    client_secret: CLIENT.clientSecret,
  });
}

export async function connect(fake: FakeUpstream, overrides: Record<string, string> = {}) {
  const response = await exchange(fake, await codeFor(fake, overrides));
  return (await response.json()) as {
    access_token: string;
    refresh_token: string;
    expires_in: number;
    scope: string;
    id_token?: string;
  };
}

export function api(
  fake: FakeUpstream,
  path: string,
  token: string | undefined,
  init: { method?: string; body?: unknown } = {},
) {
  return fetch(`${fake.url}${path}`, {
    method: init.method ?? "GET",
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), "content-type": "application/json" },
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  });
}

export function watch(
  fake: FakeUpstream,
  token: string,
  body: Record<string, unknown>,
  calendarId = "alice%40example.com",
) {
  return api(fake, `/calendar/v3/calendars/${calendarId}/events/watch`, token, { method: "POST", body });
}

export const INVALID_CREDENTIALS = {
  error: {
    code: 401,
    message:
      "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.",
    errors: [
      {
        message: "Invalid Credentials",
        domain: "global",
        reason: "authError",
        location: "Authorization",
        locationType: "header",
      },
    ],
    status: "UNAUTHENTICATED",
  },
};
