import {
  type FakeUpstream,
  type FakeUpstreamOptions,
  rawHttpRequest,
  startFakeUpstream,
} from "../fake-upstream/index.ts";
import { startTestJunction, TEST_SECRET_KEY, type TestJunction } from "../support/embedded-junction.ts";
import { waitFor } from "../support/wait-for.ts";
import { createServer, type Socket } from "node:net";
import type { Clock } from "@junction/platform";

/** A raw `GET /proxy{path}` head for integration `key` and connection "alice", with the secret key. */
export function rawProxyGet(port: number, key: string, path: string, extra: string[] = []): string {
  return [
    `GET /proxy${path} HTTP/1.1`,
    `host: 127.0.0.1:${port}`,
    `authorization: Bearer ${TEST_SECRET_KEY}`,
    `provider-config-key: ${key}`,
    `connection-id: ${CONNECTION}`,
    ...extra,
    "",
    "",
  ].join("\r\n");
}

/** The gateway's log line for the request to /proxy{path}, once it is written. */
export async function proxyRequestLog(h: ProxyHarness, path: string): Promise<Record<string, unknown>> {
  const line = await waitFor("the request's log line", () =>
    h.junction.logLines.find((l) => l.includes('"msg":"request"') && l.includes(`/proxy${path}`)),
  );
  return JSON.parse(line);
}

/** A local upstream written byte by byte: `script` runs on each connection once the request head is in. */
export async function rawUpstream(script: (socket: Socket) => void | Promise<void>) {
  const closed = Promise.withResolvers<void>();
  const server = createServer((socket) => {
    let head = "";
    socket.on("close", () => closed.resolve());
    socket.on("error", () => {});
    const onData = (chunk: Buffer) => {
      head += chunk.toString("latin1");
      if (!head.includes("\r\n\r\n")) return;
      socket.off("data", onData);
      void script(socket);
    };
    socket.on("data", onData);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, closed: closed.promise, stop: () => server.close() };
}

/** The user whose tokens the fake upstream accepts. */
export const ALICE = "alice@example.com";
export const CALENDAR = "cal";
export const MAIL = "mail";
export const CONNECTION = "alice";

export interface ProxyHarness {
  junction: TestJunction;
  fake: FakeUpstream;
  /** The upstream access token of the connection (never expected in Junction's own output). */
  accessToken: string;
  refreshToken: string;
  /** Calls /proxy/{path} with the secret key and the connection's headers (override any with `headers`). */
  proxy(method: string, path: string, init?: { headers?: Record<string, string>; body?: BodyInit }): Promise<Response>;
  /** The same over a raw socket, with the request target sent byte for byte. */
  raw(
    target: string,
    init?: { method?: string; headers?: Record<string, string>; body?: string },
  ): ReturnType<typeof rawHttpRequest>;
  /**
   * Another mail integration `key` whose operator base URL is `baseUrl` (a local server of the test),
   * with connection "alice" holding the access token `token-for-{key}`.
   */
  addUpstream(key: string, baseUrl: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * Junction (embedded) in front of the fake upstream: a calendar and a mail integration whose base URL
 * the operator points at the fake, and one connection "alice" on each, imported with tokens the fake
 * issued (no consent flow).
 */
export async function startProxyHarness(
  options: { env?: Record<string, string>; fake?: FakeUpstreamOptions; tokenTtlSeconds?: number; clock?: Clock } = {},
): Promise<ProxyHarness> {
  const fake = await startFakeUpstream({
    clients: [{ clientId: "cid", clientSecret: "client-secret-1" }],
    ...options.fake,
  });
  const junction = await startTestJunction({ env: options.env, clock: options.clock });
  const tokens = fake.issueTokens({
    email: ALICE,
    clientId: "cid",
    scopes: ["https://www.googleapis.com/auth/calendar", "https://www.googleapis.com/auth/gmail.readonly"],
    ttlSeconds: options.tokenTtlSeconds,
  });
  for (const [key, provider] of [
    [CALENDAR, "google-calendar"],
    [MAIL, "google-mail"],
  ]) {
    const integration = await junction.api("POST", "/integrations", {
      unique_key: key,
      provider,
      credentials: { type: "OAUTH2", client_id: "cid", client_secret: "client-secret-1" },
      upstream_overrides: { base_url: fake.url, token_url: fake.endpoints.tokenUrl },
    });
    if (integration.status !== 201 && integration.status !== 200) throw new Error(`integration: ${integration.text}`);
    const connection = await junction.api("POST", "/connections", {
      provider_config_key: key,
      connection_id: CONNECTION,
      credentials: {
        type: "OAUTH2",
        access_token: tokens.accessToken,
        refresh_token: tokens.refreshToken,
        expires_at: (options.clock?.now() ?? Date.now()) + tokens.expiresIn * 1000,
      },
    });
    if (connection.status >= 300) throw new Error(`connection: ${connection.text}`);
  }
  const controlHeaders = {
    authorization: `Bearer ${TEST_SECRET_KEY}`,
    "provider-config-key": CALENDAR,
    "connection-id": CONNECTION,
  };
  return {
    junction,
    fake,
    accessToken: tokens.accessToken,
    refreshToken: tokens.refreshToken ?? "",
    proxy: (method, path, init = {}) =>
      fetch(`${junction.url}/proxy${path}`, {
        method,
        headers: { ...controlHeaders, ...init.headers },
        body: init.body,
        redirect: "manual",
        duplex: "half",
      } as RequestInit),
    raw: (target, init = {}) =>
      rawHttpRequest(junction.port, target, { ...init, headers: { ...controlHeaders, ...init.headers } }),
    async addUpstream(key, baseUrl) {
      const integration = await junction.api("POST", "/integrations", {
        unique_key: key,
        provider: "google-mail",
        upstream_overrides: { base_url: baseUrl },
      });
      if (integration.status >= 300) throw new Error(`integration ${key}: ${integration.text}`);
      const connection = await junction.api("POST", "/connections", {
        provider_config_key: key,
        connection_id: CONNECTION,
        credentials: { type: "OAUTH2", access_token: `token-for-${key}` },
      });
      if (connection.status >= 300) throw new Error(`connection ${key}: ${connection.text}`);
    },
    async close() {
      await junction.close();
      await fake.stop();
    },
  };
}
