import { afterEach, describe, expect, test } from "bun:test";
import { CLIENT, manualClock, REDIRECT_URI, useFakeUpstreams, VERIFIER } from "./fake-upstream-test-kit.ts";
import { type FakeUpstream, pkceChallenge } from "./index.ts";

// The Microsoft identity platform fake (tenant in the path, code with PKCE, refresh) and the Graph fake
// (subscriptions with their validation request, notification batches, expiry, lifecycle notifications).

const { start } = useFakeUpstreams();
const ADELE = "adele@contoso.example";
const MINUTE = 60_000;

/** A notification URL that answers Graph's validation request as `mode` says, and records batches. */
function graphEndpoint(mode: "echo" | "wrong" | "hang" = "echo") {
  const batches: unknown[] = [];
  const hanging = new AbortController();
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      const token = new URL(request.url).searchParams.get("validationToken");
      if (token === null) {
        batches.push(await request.json());
        return new Response(null, { status: 202 });
      }
      if (mode === "hang") await new Promise((resolve) => hanging.signal.addEventListener("abort", resolve));
      const body = mode === "echo" ? token : "something else";
      return new Response(body, { headers: { "content-type": "text/plain" } });
    },
  });
  running.push(() => {
    hanging.abort();
    server.stop(true);
  });
  return { url: `http://127.0.0.1:${server.port}/notify`, batches };
}
const running: Array<() => void> = [];
afterEach(() => {
  for (const stop of running.splice(0)) stop();
});

const tokenUrl = (fake: FakeUpstream, tenant = "contoso.example") =>
  fake.endpoints.microsoftTokenUrl.replace("{tenant}", tenant);

async function signIn(fake: FakeUpstream, extra: Record<string, string> = {}) {
  const params = new URLSearchParams({
    client_id: CLIENT.clientId,
    redirect_uri: REDIRECT_URI,
    response_type: "code",
    response_mode: "query",
    scope: "offline_access openid User.Read Calendars.Read",
    state: "s-1",
    login_hint: ADELE,
    code_challenge: pkceChallenge(VERIFIER),
    code_challenge_method: "S256",
    ...extra,
  });
  const url = `${fake.endpoints.microsoftAuthorizationUrl.replace("{tenant}", "contoso.example")}?${params}`;
  const callback = await fake.microsoftAuthorize(url);
  expect(callback.searchParams.get("state")).toBe("s-1");
  return callback.searchParams.get("code") ?? "";
}

function redeem(fake: FakeUpstream, code: string, verifier = VERIFIER) {
  return fetch(tokenUrl(fake), {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "authorization_code",
      code,
      redirect_uri: REDIRECT_URI,
      code_verifier: verifier,
      client_id: CLIENT.clientId,
      client_secret: CLIENT.clientSecret,
    }),
  });
}

async function accessToken(fake: FakeUpstream): Promise<string> {
  return ((await (await redeem(fake, await signIn(fake))).json()) as { access_token: string }).access_token;
}

function graph(fake: FakeUpstream, token: string, method: string, path: string, body?: unknown) {
  return fetch(`${fake.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
}

const subscriptionBody = (url: string, now: number, minutes = 4000) => ({
  changeType: "created,updated",
  notificationUrl: url,
  resource: "/me/events",
  expirationDateTime: new Date(now + minutes * MINUTE).toISOString(),
  clientState: "state-of-the-client",
});

describe("Microsoft identity platform fake", () => {
  test("redeems a code with its PKCE verifier once, on the tenant of the path; refresh answers a new refresh token", async () => {
    const fake = await start();
    const code = await signIn(fake);
    const tokens = (await (await redeem(fake, code)).json()) as Record<string, unknown>;
    expect(tokens).toMatchObject({ token_type: "Bearer", expires_in: 3599, scope: "openid User.Read Calendars.Read" });
    expect(typeof tokens.refresh_token).toBe("string");
    const again = await redeem(fake, code);
    expect(again.status).toBe(400);
    expect(await again.json()).toMatchObject({ error: "invalid_grant", error_codes: [54005] });
    const refreshed = await fetch(tokenUrl(fake), {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        authorization: `Basic ${btoa(`${CLIENT.clientId}:${CLIENT.clientSecret}`)}`,
      },
      body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: String(tokens.refresh_token) }),
    });
    const next = (await refreshed.json()) as Record<string, unknown>;
    expect(next.refresh_token).not.toBe(tokens.refresh_token);
    expect(fake.state.microsoftTokenRequests.map((r) => [r.grantType, r.tenant, r.ok])).toEqual([
      ["authorization_code", "contoso.example", true],
      ["authorization_code", "contoso.example", false],
      ["refresh_token", "contoso.example", true],
    ]);
  });

  test("refuses a wrong verifier, an expired code and a wrong secret with the platform's errors", async () => {
    const clock = manualClock();
    const fake = await start({ now: clock.now });
    const wrong = await redeem(fake, await signIn(fake), "another-verifier-long-enough-to-be-a-verifier-xxxxxxxxxxxx");
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toMatchObject({ error: "invalid_grant", error_codes: [501481] });
    const code = await signIn(fake);
    clock.advance(11 * MINUTE);
    expect(await (await redeem(fake, code)).json()).toMatchObject({ error: "invalid_grant", error_codes: [70008] });
    const badSecret = await fetch(tokenUrl(fake), {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: "x", client_id: CLIENT.clientId }),
    });
    expect(badSecret.status).toBe(401);
    expect(await badSecret.json()).toMatchObject({ error: "invalid_client", error_codes: [7000215] });
  });

  test("shows an unknown client or tenant on the page, never redirecting", async () => {
    const fake = await start();
    const page = await fetch(
      `${fake.url}/contoso.example/oauth2/v2.0/authorize?client_id=nobody&redirect_uri=${REDIRECT_URI}`,
      { redirect: "manual" },
    );
    expect(page.status).toBe(400);
    expect(await page.text()).toContain("AADSTS700016");
    const tenant = await fetch(`${fake.url}/bad%20tenant/oauth2/v2.0/authorize?client_id=${CLIENT.clientId}`);
    expect(await tenant.text()).toContain("AADSTS90002");
  });
});

describe("Graph fake", () => {
  test("validates the notification URL before creating; notifies changes in batches; expiry by the clock ends it", async () => {
    const clock = manualClock();
    const fake = await start({ now: clock.now });
    const token = await accessToken(fake);
    const me = await (await graph(fake, token, "GET", "/v1.0/me")).json();
    expect(me).toMatchObject({ mail: ADELE, userPrincipalName: ADELE });
    const endpoint = graphEndpoint();
    const created = await graph(
      fake,
      token,
      "POST",
      "/v1.0/subscriptions",
      subscriptionBody(endpoint.url, clock.now()),
    );
    expect(created.status).toBe(201);
    const subscription = (await created.json()) as { id: string; expirationDateTime: string };
    expect(fake.state.graphValidations).toMatchObject([{ url: endpoint.url, status: 200, ok: true }]);
    expect(fake.state.graphValidations[0]?.token).toStartWith("Validation: ");

    const event = await (await graph(fake, token, "POST", "/v1.0/me/events", { subject: "Standup" })).json();
    const [batch] = await fake.awaitGraphNotifications(1);
    expect(batch?.status).toBe(202);
    expect(endpoint.batches).toEqual([
      {
        value: [
          expect.objectContaining({
            subscriptionId: subscription.id,
            clientState: "state-of-the-client",
            changeType: "created",
            subscriptionExpirationDateTime: subscription.expirationDateTime,
            resourceData: expect.objectContaining({ id: event.id }),
            tenantId: expect.any(String),
          }),
        ],
      },
    ]);
    // "deleted" is not among its change types: nothing sent.
    expect((await graph(fake, token, "DELETE", `/v1.0/me/events/${event.id}`)).status).toBe(204);
    await fake.settleGraphNotifications();
    expect(fake.state.graphNotificationsSent).toHaveLength(1);

    clock.advance(4001 * MINUTE);
    expect(fake.state.graphSubscriptions.map((s) => s.state)).toEqual(["expired"]);
    fake.createGraphEvent(ADELE);
    await fake.settleGraphNotifications();
    expect(fake.state.graphNotificationsSent).toHaveLength(1);
    // The access token expired too (an hour): a fresh one, and the subscription is still gone.
    expect((await graph(fake, token, "GET", "/v1.0/me")).status).toBe(401);
    const renew = await graph(fake, await accessToken(fake), "PATCH", `/v1.0/subscriptions/${subscription.id}`, {
      expirationDateTime: new Date(clock.now() + MINUTE).toISOString(),
    });
    expect(renew.status).toBe(404);
    expect(await renew.json()).toMatchObject({ error: { code: "ResourceNotFound" } });
  });

  test("creation fails as Graph fails it: a wrong echo, no answer in time, a lifetime over 10,080 minutes", async () => {
    const clock = manualClock();
    const fake = await start({ now: clock.now, graphValidationTimeoutMs: 300 });
    const token = await accessToken(fake);
    const wrong = await graph(
      fake,
      token,
      "POST",
      "/v1.0/subscriptions",
      subscriptionBody(graphEndpoint("wrong").url, clock.now()),
    );
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toMatchObject({ error: { code: "ValidationError" } });
    const slow = await graph(
      fake,
      token,
      "POST",
      "/v1.0/subscriptions",
      subscriptionBody(graphEndpoint("hang").url, clock.now()),
    );
    expect(await slow.json()).toMatchObject({ error: { message: "Subscription validation request timed out." } });
    const long = await graph(
      fake,
      token,
      "POST",
      "/v1.0/subscriptions",
      subscriptionBody(graphEndpoint().url, clock.now(), 10_081),
    );
    expect(await long.json()).toMatchObject({
      error: { code: "InvalidRequest", message: "Subscription expiration can only be 10080 minutes in the future." },
    });
    expect(fake.state.graphSubscriptions).toEqual([]);
    expect(fake.state.graphValidations.map((v) => v.ok)).toEqual([false, false]);
  });

  test("lifecycle notifications go to the lifecycle URL; subscriptionRemoved removes the subscription", async () => {
    const clock = manualClock();
    const fake = await start({ now: clock.now });
    const token = await accessToken(fake);
    const changes = graphEndpoint();
    const lifecycle = graphEndpoint();
    const body = { ...subscriptionBody(changes.url, clock.now()), lifecycleNotificationUrl: lifecycle.url };
    const { id } = (await (await graph(fake, token, "POST", "/v1.0/subscriptions", body)).json()) as { id: string };
    expect(fake.state.graphValidations.map((v) => v.url)).toEqual([changes.url, lifecycle.url]);
    fake.sendGraphLifecycle(id, "reauthorizationRequired");
    fake.sendGraphLifecycle(id, "subscriptionRemoved");
    await fake.awaitGraphNotifications(2);
    expect(lifecycle.batches).toMatchObject([
      {
        value: [{ lifecycleEvent: "reauthorizationRequired", subscriptionId: id, clientState: "state-of-the-client" }],
      },
      { value: [{ lifecycleEvent: "subscriptionRemoved", subscriptionId: id }] },
    ]);
    expect(changes.batches).toEqual([]);
    expect(fake.state.graphSubscriptions.map((s) => s.state)).toEqual(["removed"]);
    expect((await graph(fake, token, "DELETE", `/v1.0/subscriptions/${id}`)).status).toBe(404);
  });
});
