import { describe, expect, test } from "bun:test";
import { api, DAY_MS, manualClock, useFakeUpstreams } from "./fake-upstream-test-kit.ts";
import type { FakeUpstream } from "./index.ts";

// The Gmail fake's watches and the Pub/Sub that pushes its notifications, signed with the fake's key.

const { start, receiver } = useFakeUpstreams();
const TOPIC = "projects/fake-project/topics/gmail";
const SERVICE_ACCOUNT = "push@fake-project.iam.gserviceaccount.com";
const GMAIL = "https://www.googleapis.com/auth/gmail.readonly";

async function watchMailbox(fake: FakeUpstream, token: string, body: Record<string, unknown> = { topicName: TOPIC }) {
  return api(fake, "/gmail/v1/users/me/watch", token, { method: "POST", body });
}

/** Checks a push's bearer token as a receiver would, with WebCrypto against the fake's JWKS: what is wrong, or "ok". */
async function check(fake: FakeUpstream, authorization: string | undefined, audience: string, now: number) {
  const [header, claims, signature] = (authorization ?? "").replace(/^Bearer /, "").split(".");
  if (!header || !claims || signature === undefined) return "missing";
  const { alg, kid } = JSON.parse(Buffer.from(header, "base64url").toString());
  if (alg !== "RS256") return "unsigned";
  const { keys } = (await (await fetch(fake.endpoints.jwksUrl)).json()) as { keys: (JsonWebKey & { kid: string })[] };
  const jwk = keys.find((k) => k.kid === kid);
  if (!jwk) return "unknown key";
  const key = await crypto.subtle.importKey("jwk", jwk, { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" }, false, [
    "verify",
  ]);
  const signed = new TextEncoder().encode(`${header}.${claims}`);
  if (!(await crypto.subtle.verify("RSASSA-PKCS1-v1_5", key, Buffer.from(signature, "base64url"), signed))) {
    return "bad-signature";
  }
  const payload = JSON.parse(Buffer.from(claims, "base64url").toString());
  if (payload.iss !== "https://accounts.google.com") return "wrong issuer";
  if (payload.exp * 1000 <= now) return "expired";
  if (payload.aud !== audience) return "wrong-audience";
  return payload.email === SERVICE_ACCOUNT && payload.email_verified === true && payload.iat * 1000 <= now
    ? "ok"
    : "wrong email";
}

const claimsOf = (authorization: string | undefined) =>
  JSON.parse(Buffer.from((authorization ?? "").split(".")[1] ?? "", "base64url").toString());

describe("Gmail watches and Pub/Sub pushes", () => {
  test("one watch per mailbox for 7 days; a new mail pushes a signed Pub/Sub request to the subscription", async () => {
    const clock = manualClock();
    const fake = await start({ now: clock.now });
    const hook = receiver();
    fake.createPushSubscription({ topic: TOPIC, pushEndpoint: hook.url, serviceAccountEmail: SERVICE_ACCOUNT });
    const { accessToken } = fake.issueTokens({ scopes: [GMAIL] });
    const missing = await watchMailbox(fake, accessToken, { labelIds: ["INBOX"] });
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({ error: { code: 400, status: "INVALID_ARGUMENT" } });
    const first = await watchMailbox(fake, accessToken);
    expect(await first.json()).toEqual({ historyId: "1000", expiration: String(clock.now() + 7 * DAY_MS) });
    expect((await watchMailbox(fake, accessToken, { topicName: TOPIC, labelIds: ["INBOX"] })).status).toBe(200);
    expect(fake.state.gmailWatches.map((w) => w.state)).toEqual(["stopped", "active"]);

    const { historyId, messageId } = fake.receiveMail("alice@example.com");
    expect(historyId).toBe(1001);
    const [push] = await hook.waitFor(1);
    const body = JSON.parse(push?.body ?? "{}");
    expect(body).toMatchObject({
      subscription: "projects/fake-project/subscriptions/gmail-push",
      message: { messageId, publishTime: new Date(clock.now()).toISOString(), attributes: {} },
    });
    expect(JSON.parse(Buffer.from(body.message.data, "base64").toString())).toEqual({
      emailAddress: "alice@example.com",
      historyId: 1001,
    });
    // The audience defaults to the push endpoint, as Pub/Sub's does.
    expect(await check(fake, push?.headers.authorization, hook.url, clock.now())).toBe("ok");
    expect(claimsOf(push?.headers.authorization).exp).toBe(Math.floor(clock.now() / 1000) + 3600);

    // A sent mail has no INBOX label: the INBOX watch publishes nothing.
    const raw = Buffer.from("To: bob@example.com\r\n\r\nhi").toString("base64url");
    await api(fake, "/gmail/v1/users/me/messages/send", accessToken, { method: "POST", body: { raw } });
    await fake.settlePushes();
    expect(fake.state.pushesSent).toHaveLength(1);
  });

  test("spoiled tokens, redeliveries, stop and expiry", async () => {
    const clock = manualClock();
    const fake = await start({ now: clock.now });
    const hook = receiver();
    const audience = "https://junction.test/push";
    fake.createPushSubscription({
      topic: TOPIC,
      pushEndpoint: hook.url,
      audience,
      serviceAccountEmail: SERVICE_ACCOUNT,
    });
    const { accessToken } = fake.issueTokens({ scopes: [GMAIL], ttlSeconds: 30 * 86_400 });
    await watchMailbox(fake, accessToken);
    fake.spoilNextPushTokens("expired");
    fake.spoilNextPushTokens("wrong-audience");
    fake.spoilNextPushTokens("bad-signature");
    fake.spoilNextPushTokens("missing");
    const sent = [1, 2, 3, 4].map(() => fake.receiveMail("alice@example.com").messageId);
    const pushes = await hook.waitFor(4);
    const outcome = (authorization: string | undefined) => check(fake, authorization, audience, clock.now());
    expect(await Promise.all(pushes.map((p) => outcome(p.headers.authorization)))).toEqual([
      "expired",
      "wrong-audience",
      "bad-signature",
      "missing",
    ]);
    expect(pushes[3]?.headers.authorization).toBeUndefined();

    expect(fake.redeliverPush(sent[0] ?? "")).toBe(1);
    const [, , , , again] = await hook.waitFor(5);
    expect(JSON.parse(again?.body ?? "{}").message.messageId).toBe(sent[0]);
    expect(await outcome(again?.headers.authorization)).toBe("ok");

    expect((await api(fake, "/gmail/v1/users/me/stop", accessToken, { method: "POST" })).status).toBe(204);
    expect(fake.receiveMail("alice@example.com").messageId).toBe("");
    await watchMailbox(fake, accessToken);
    clock.advance(7 * DAY_MS);
    expect(fake.state.gmailWatches.map((w) => w.state)).toEqual(["stopped", "expired"]);
    expect(fake.receiveMail("alice@example.com").messageId).toBe("");
    await fake.settlePushes();
    expect(fake.state.pushesSent).toHaveLength(5);
  });

  test("Pub/Sub's admin API: a subscription needs its topic; the sandbox's demo makes both with PUT", async () => {
    const fake = await start();
    const put = (path: string, body: unknown) =>
      fetch(`${fake.endpoints.pubsubBaseUrl}${path}`, { method: "PUT", body: JSON.stringify(body) });
    const subscription = {
      topic: "projects/demo/topics/gmail",
      pushConfig: { pushEndpoint: "http://127.0.0.1:9/hook", oidcToken: { serviceAccountEmail: SERVICE_ACCOUNT } },
    };
    expect((await put("/v1/projects/demo/subscriptions/junction", subscription)).status).toBe(404);
    expect((await put("/v1/projects/demo/topics/gmail", {})).status).toBe(200);
    expect((await put("/v1/projects/demo/topics/gmail", {})).status).toBe(409);
    const created = await put("/v1/projects/demo/subscriptions/junction", subscription);
    expect(await created.json()).toMatchObject({
      name: "projects/demo/subscriptions/junction",
      pushConfig: { oidcToken: { serviceAccountEmail: SERVICE_ACCOUNT, audience: "http://127.0.0.1:9/hook" } },
    });
  });
});
