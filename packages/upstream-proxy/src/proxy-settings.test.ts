import { afterEach, describe, expect, test } from "bun:test";
import { createLogger } from "@junction/platform";
import { DEFAULT_PROXY_SETTINGS, loadProxySettings, type ProxySettings } from "./proxy-settings.ts";
import { readUpstreamRequest } from "./proxy-controls.ts";
import { NO_BODY } from "./request-body.ts";
import { parseBase } from "./upstream-url.ts";
import { createUpstreamProxy } from "./upstream-proxy.ts";

const HEADERS = { "provider-config-key": "cal", "connection-id": "alice" };
let upstream: ReturnType<typeof Bun.serve> | undefined;
afterEach(() => upstream?.stop(true));

/** The engine over a local upstream; the resolve answer carries no timeout or retry setting. */
function engineFor(handler: (req: Request) => Response | Promise<Response>, settings: ProxySettings) {
  upstream = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: handler });
  const baseUrl = `http://127.0.0.1:${upstream.port}`;
  const proxy = createUpstreamProxy({
    settings,
    resolve: async () => ({
      baseUrl,
      base: parseBase(baseUrl),
      headers: { authorization: "Bearer t" },
      cacheUntil: Date.now() + 60_000,
      allowedOverrideHosts: [],
      provider: "",
      channels: undefined,
    }),
    reportChannelCall: async () => undefined,
  });
  return () =>
    proxy(readUpstreamRequest(HEADERS, "GET", "/items", "", true, NO_BODY), {
      environmentId: "env_1",
      headers: HEADERS,
      req: { signal: new AbortController().signal },
      requestId: "req_1",
      logger: createLogger({ level: "error" }),
    });
}

describe("proxy settings", () => {
  test("fails fast naming the variable", () => {
    expect(() => loadProxySettings({ JUNCTION_PROXY_UPSTREAM_TIMEOUT_MS: "soon" })).toThrow(
      "JUNCTION_PROXY_UPSTREAM_TIMEOUT_MS",
    );
    expect(() => loadProxySettings({ JUNCTION_PROXY_MAX_RETRIES: "99" })).toThrow("JUNCTION_PROXY_MAX_RETRIES");
    expect(loadProxySettings({ JUNCTION_PROXY_DEFAULT_RETRIES: "1" }).defaultRetries).toBe(1);
  });

  test("the engine retries as configured", async () => {
    let attempts = 0;
    const call = engineFor(
      () => {
        attempts++;
        return new Response("busy", { status: 503 });
      },
      { ...DEFAULT_PROXY_SETTINGS, defaultRetries: 1, retryBaseDelayMs: 0, retryMaxDelayMs: 0 },
    );
    expect((await call()).status).toBe(503);
    expect(attempts).toBe(2);
  });

  test("the engine times out as configured", async () => {
    const never = Promise.withResolvers<Response>();
    const call = engineFor(() => never.promise, {
      ...DEFAULT_PROXY_SETTINGS,
      upstreamTimeoutMs: 100,
      defaultRetries: 0,
    });
    const failure = await call().then(
      () => undefined,
      (err: unknown) => err,
    );
    never.resolve(new Response("late"));
    expect((failure as { code?: string }).code).toBe("upstream_timeout");
  });
});
