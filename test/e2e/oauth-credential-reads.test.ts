import { describe, expect, test } from "bun:test";
import { TEST_SECRET_KEY } from "../support/embedded-junction.ts";
import { connectedId, type OAuthWorld, proxyGet, revokeAndExpire, useOAuthWorld } from "./oauth-e2e-kit.ts";

// GET /connection(s)/{id} hands the access token to the customer's app (spec: Authentication 3), fresh:
// through the same single-flight refresher as the proxy, so both agree on the token and on failures.

const world = useOAuthWorld();
const HOUR = 3600_000;

/** The request @nangohq/node's getConnection / getToken sends (forceRefresh as given). */
const read = (w: OAuthWorld, id: string, forceRefresh = false, refreshToken = false) =>
  w.j.api(
    "GET",
    `/connections/${id}?provider_config_key=cal&force_refresh=${forceRefresh}&refresh_token=${refreshToken}&refresh_github_app_jwt_token=false`,
  );

describe("reading a connection's credentials", () => {
  test("returns the stored token while it is fresh, without a token request; raw holds no refresh token", async () => {
    const w = await world();
    const id = await connectedId(w);
    const stored = await w.j.clients.connection.getCredentials({ providerConfigKey: "cal", connectionId: id });
    const res = await read(w, id);
    expect(res.status).toBe(200);
    expect(res.body.credentials).toMatchObject({
      type: "OAUTH2",
      access_token: stored.credentials?.accessToken,
      expires_at: new Date(Number(stored.credentials?.expiresAtMs)).toISOString(),
    });
    expect(res.body.credentials.raw).toMatchObject({ access_token: stored.credentials?.accessToken });
    expect(res.text).not.toContain(stored.credentials?.refreshToken as string);
    expect(w.fake.state.tokenRequests.refresh_token ?? 0).toBe(0);

    const withRefresh = await read(w, id, false, true);
    expect(withRefresh.body.credentials.refresh_token).toBe(stored.credentials?.refreshToken);
    expect(withRefresh.body.credentials.raw.refresh_token).toBe(stored.credentials?.refreshToken);
    const list = await w.j.api("GET", `/connections?connectionId=${id}`);
    expect(list.body.connections).toHaveLength(1);
    expect(list.text).not.toContain(stored.credentials?.accessToken as string);
    expect(list.text).not.toContain(stored.credentials?.refreshToken as string);
    const log = w.j.logLines.join("\n");
    expect(log).not.toContain(stored.credentials?.accessToken as string);
    expect(log).not.toContain(stored.credentials?.refreshToken as string);
  });

  test("an expired token is refreshed before it is returned: one token request for concurrent reads and proxy calls", async () => {
    const w = await world({ fake: { tokenDelayMs: 100 } });
    const id = await connectedId(w);
    const before = (await read(w, id)).body.credentials.access_token as string;
    await w.clock.advance(HOUR);
    const [reads, proxied] = await Promise.all([
      Promise.all(Array.from({ length: 10 }, () => read(w, id))),
      Promise.all(Array.from({ length: 5 }, () => proxyGet(w, id))),
    ]);
    expect(reads.map((r) => r.status)).toEqual(Array(10).fill(200));
    expect(proxied.map((r) => r.status)).toEqual(Array(5).fill(200));
    expect(w.fake.state.tokenRequests.refresh_token).toBe(1);
    const tokens = new Set(reads.map((r) => r.body.credentials.access_token));
    expect(tokens.size).toBe(1);
    expect(tokens.has(before)).toBe(false);
    expect(Date.parse(reads[0]?.body.credentials.expires_at)).toBeGreaterThan(w.clock.now());
  });

  test("force_refresh=true refreshes a fresh token; the next plain read returns the new one without refreshing", async () => {
    const w = await world();
    const id = await connectedId(w);
    const before = (await read(w, id)).body.credentials.access_token as string;
    const forced = await read(w, id, true);
    expect(forced.status).toBe(200);
    expect(forced.body.credentials.access_token).not.toBe(before);
    expect(w.fake.state.tokenRequests.refresh_token).toBe(1);
    expect((await read(w, id)).body.credentials.access_token).toBe(forced.body.credentials.access_token);
    expect(w.fake.state.tokenRequests.refresh_token).toBe(1);
  });

  test("a refused refresh is the proxy's 424 connection_refresh_failed, same body; the list still shows the error", async () => {
    const w = await world({ env: { JUNCTION_REFRESH_FAILURE_COOLDOWN_MS: String(10 * 60_000) } });
    const id = await connectedId(w);
    const credentials = await revokeAndExpire(w, id);

    const failed = await read(w, id);
    expect(failed.status).toBe(424);
    expect(failed.body.error.code).toBe("connection_refresh_failed");
    expect(failed.body.error.message).toContain("invalid_grant");
    const viaProxy = await proxyGet(w, id);
    expect(viaProxy.status).toBe(424);
    expect(viaProxy.body).toEqual(failed.body);
    expect(w.fake.state.tokenRequests.refresh_token).toBe(1);
    expect(failed.text).not.toContain(credentials?.accessToken as string);

    const list = await w.j.api("GET", `/connections?connectionId=${id}`);
    expect(list.body.connections[0].errors[0]).toMatchObject({ type: "refresh_failed" });
  });
});

describe("credential reads switched off by the operator (JUNCTION_CREDENTIAL_READS=false)", () => {
  test("GET /connection/{id} is 403 credential_reads_disabled with no token; the proxy still works", async () => {
    const w = await world({ env: { JUNCTION_CREDENTIAL_READS: "false" } });
    const id = await connectedId(w);
    const { credentials } = await w.j.clients.connection.getCredentials({ providerConfigKey: "cal", connectionId: id });
    for (const [base, force] of [
      ["/connection", false],
      ["/connections", false],
      ["/connections", true],
    ] as const) {
      const res = await w.j.api("GET", `${base}/${id}?provider_config_key=cal&force_refresh=${force}`);
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe("credential_reads_disabled");
      expect(res.text).not.toContain(credentials?.accessToken as string);
    }
    expect(w.fake.state.tokenRequests.refresh_token ?? 0).toBe(0);
    expect((await w.j.api("GET", `/connection/nobody?provider_config_key=cal`)).status).toBe(404);
    expect((await proxyGet(w, id)).status).toBe(200);
    // The dashboard says so, read-only, and still shows the connection (never with tokens).
    const login = await fetch(`${w.j.url}/dashboard/login`, {
      method: "POST",
      body: new URLSearchParams({ secret_key: TEST_SECRET_KEY }),
      redirect: "manual",
    });
    const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0] as string;
    const session = await fetch(`${w.j.url}/dashboard/api/session`, { headers: { cookie } });
    expect((await session.json()).data.credential_reads).toBe(false);
    const page = await fetch(`${w.j.url}/dashboard/api/connections/${id}?provider_config_key=cal`, {
      headers: { cookie },
    });
    expect(page.status).toBe(200);
    expect(await page.text()).not.toContain(credentials?.accessToken as string);
  });

  test("a value other than true or false stops Junction from starting, naming the variable", async () => {
    const w = world({ env: { JUNCTION_CREDENTIAL_READS: "maybe" } });
    await expect(w).rejects.toThrow(/JUNCTION_CREDENTIAL_READS/);
  });
});
