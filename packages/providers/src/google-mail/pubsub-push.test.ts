import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import type { NotificationReading, ReadContext } from "../adapter.ts";
import { pubsubPushReader } from "./pubsub-push.ts";

// Gmail's Pub/Sub pushes, read and (when the integration asks) authenticated by
// their OIDC token, checked against keys served by a local JWKS endpoint.

const NOW = Date.UTC(2026, 10, 25, 12, 0, 0);
const AUDIENCE = "https://junction.example/webhook/env_1/mail";
const SERVICE_ACCOUNT = "push@project.iam.gserviceaccount.com";
const ALICE = "alice@example.com";

let privateKey: CryptoKey;
let otherKey: CryptoKey;
let jwks: ReturnType<typeof Bun.serve>;
let jwksRequests = 0;
beforeAll(async () => {
  const pair = await generateKeyPair("RS256");
  privateKey = pair.privateKey;
  otherKey = (await generateKeyPair("RS256")).privateKey;
  const jwk = { ...(await exportJWK(pair.publicKey)), kid: "key-1", alg: "RS256", use: "sig" };
  jwks = Bun.serve({
    port: 0,
    fetch: () => {
      jwksRequests++;
      return Response.json({ keys: [jwk] });
    },
  });
});
afterAll(() => jwks.stop(true));

const jwksUrl = () => `http://127.0.0.1:${jwks.port}/certs`;

function pushBody(data: unknown, message: Record<string, unknown> = {}, raw?: string): Uint8Array {
  const encoded = raw ?? Buffer.from(JSON.stringify(data)).toString("base64");
  return new TextEncoder().encode(
    JSON.stringify({
      message: { data: encoded, messageId: "msg-1", publishTime: "2026-11-25T12:00:00.000Z", ...message },
      subscription: "projects/p/subscriptions/gmail-push",
    }),
  );
}

const GOOD_BODY = pushBody({ emailAddress: ALICE, historyId: "9876543210" });

function token(claims: Record<string, unknown> = {}, key: CryptoKey = privateKey, kid = "key-1"): Promise<string> {
  return new SignJWT({
    iss: "https://accounts.google.com",
    aud: AUDIENCE,
    iat: Math.floor(NOW / 1000) - 60,
    exp: Math.floor(NOW / 1000) + 3600,
    email: SERVICE_ACCOUNT,
    email_verified: true,
    ...claims,
  })
    .setProtectedHeader({ alg: "RS256", kid, typ: "JWT" })
    .sign(key);
}

const SECURED = { pubsub_audience: AUDIENCE, pubsub_service_account_email: SERVICE_ACCOUNT };

function read(
  body: Uint8Array,
  options: { authorization?: string; settings?: Record<string, string>; now?: number } = {},
  reader = pubsubPushReader(),
): Promise<NotificationReading> {
  const context: ReadContext = {
    settings: { pubsub_jwks_url: jwksUrl(), ...options.settings },
    now: options.now ?? NOW,
    fetch: (input, init) => fetch(input, init),
  };
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (options.authorization !== undefined) headers.authorization = options.authorization;
  return Promise.resolve(reader({ headers, body, query: "", contentType: "application/json" }, context));
}

function refusal(reading: NotificationReading): { status: number; code: string } {
  if (reading.kind !== "refused") throw new Error(`expected a refusal, got ${reading.kind}`);
  return { status: reading.status, code: reading.code };
}

describe("reading a Pub/Sub push", () => {
  test("a push is one item: deduplicated by messageId, matched by its email, the payload documented", async () => {
    const reading = await read(
      pushBody({ emailAddress: ALICE, historyId: "9876543210" }, { attributes: { origin: "gmail" } }),
    );
    expect(reading).toEqual({
      kind: "notifications",
      acceptStatus: 200,
      items: [
        {
          channelId: undefined,
          messageNumber: null,
          resourceUri: "",
          resourceId: "",
          state: "",
          token: "",
          dedupeKey: "msg-1",
          match: { by: "email", email: ALICE },
          payload: {
            emailAddress: ALICE,
            historyId: "9876543210",
            messageId: "msg-1",
            publishTime: "2026-11-25T12:00:00.000Z",
            subscription: "projects/p/subscriptions/gmail-push",
            attributes: { origin: "gmail" },
          },
        },
      ],
    });
  });

  test("the snake_case spellings and a numeric historyId are read; no attributes, no attributes key", async () => {
    const body = pushBody(
      { emailAddress: ALICE, historyId: 42 },
      { messageId: undefined, publishTime: undefined, message_id: "m-2", publish_time: "2026-11-25T12:00:01Z" },
    );
    const reading = await read(body);
    if (reading.kind !== "notifications") throw new Error(reading.kind);
    expect(reading.items[0]?.dedupeKey).toBe("m-2");
    expect(reading.items[0]?.payload).toEqual({
      emailAddress: ALICE,
      historyId: "42",
      messageId: "m-2",
      publishTime: "2026-11-25T12:00:01Z",
      subscription: "projects/p/subscriptions/gmail-push",
    });
  });

  const bad: [string, Uint8Array, string][] = [
    ["a body that is not JSON", new TextEncoder().encode("not json"), "pubsub_body_invalid"],
    ["a JSON array", new TextEncoder().encode("[]"), "pubsub_body_invalid"],
    ["no message", new TextEncoder().encode('{"subscription":"s"}'), "pubsub_message_missing"],
    ["no messageId", pushBody({ emailAddress: ALICE, historyId: "1" }, { messageId: "" }), "pubsub_message_id_missing"],
    ["data that is not base64", pushBody(null, {}, "%%%not-base64%%%"), "pubsub_data_invalid"],
    [
      "base64 data that is not JSON",
      pushBody(null, {}, Buffer.from("hello").toString("base64")),
      "pubsub_data_invalid",
    ],
    ["no data at all", pushBody(null, { data: undefined }), "pubsub_data_invalid"],
    ["data without emailAddress", pushBody({ historyId: "1" }), "pubsub_email_missing"],
    ["data without historyId", pushBody({ emailAddress: ALICE }), "pubsub_data_invalid"],
  ];
  for (const [what, body, code] of bad) {
    test(`${what}: refused 400 ${code}`, async () => {
      expect(refusal(await read(body))).toEqual({ status: 400, code });
    });
  }
});

describe("authenticating a push (https://cloud.google.com/pubsub/docs/authenticate-push-subscriptions)", () => {
  test("a valid token for the audience and service account is accepted", async () => {
    const reading = await read(GOOD_BODY, { authorization: `Bearer ${await token()}`, settings: SECURED });
    expect(reading.kind).toBe("notifications");
  });

  test("without an audience or service account setting no token is asked for", async () => {
    expect((await read(GOOD_BODY)).kind).toBe("notifications");
  });

  test("a missing or non-Bearer token is refused 401 pubsub_token_missing", async () => {
    expect(refusal(await read(GOOD_BODY, { settings: SECURED }))).toEqual({
      status: 401,
      code: "pubsub_token_missing",
    });
    const basic = await read(GOOD_BODY, { authorization: "Basic dXNlcjpwYXNz", settings: SECURED });
    expect(refusal(basic)).toEqual({ status: 401, code: "pubsub_token_missing" });
  });

  test("the token is checked before the body is read", async () => {
    const reading = await read(new TextEncoder().encode("not json"), { settings: SECURED });
    expect(refusal(reading).code).toBe("pubsub_token_missing");
  });

  const invalid: [string, () => Promise<string>, Record<string, string>?][] = [
    ["signed by another key", () => token({}, otherKey)],
    ["signed by a key the set does not hold", () => token({}, otherKey, "key-unknown")],
    ["for another audience", () => token({ aud: "https://elsewhere.example/push" })],
    ["from another issuer", () => token({ iss: "https://evil.example" })],
    ["issued by accounts.google.com but expired", () => token({ exp: Math.floor(NOW / 1000) - 1 })],
    ["naming another service account", () => token({ email: "other@project.iam.gserviceaccount.com" })],
    ["with an unverified email", () => token({ email_verified: false })],
    ["that is not a JWT", async () => "not.a.jwt"],
    ["for another audience, with only the audience set", () => token({ aud: "x" }), { pubsub_audience: AUDIENCE }],
  ];
  for (const [what, make, settings] of invalid) {
    test(`a token ${what} is refused 403 pubsub_token_invalid`, async () => {
      const reading = await read(GOOD_BODY, { authorization: `Bearer ${await make()}`, settings: settings ?? SECURED });
      expect(refusal(reading)).toEqual({ status: 403, code: "pubsub_token_invalid" });
    });
  }

  test("expiry is judged by the injected clock", async () => {
    const bearer = `Bearer ${await token()}`;
    expect((await read(GOOD_BODY, { authorization: bearer, settings: SECURED, now: NOW + 3599_000 })).kind).toBe(
      "notifications",
    );
    const late = await read(GOOD_BODY, { authorization: bearer, settings: SECURED, now: NOW + 3601_000 });
    expect(refusal(late)).toEqual({ status: 403, code: "pubsub_token_invalid" });
    if (late.kind === "refused") expect(late.message).toContain("expired");
  });

  test("a refusal never repeats the token", async () => {
    const bad = await token({ aud: "https://elsewhere.example/push" });
    const reading = await read(GOOD_BODY, { authorization: `Bearer ${bad}`, settings: SECURED });
    expect(JSON.stringify(reading)).not.toContain(bad);
    expect(JSON.stringify(reading)).not.toContain(bad.split(".")[1] ?? "");
  });

  test("the key set is fetched once and cached; its expiry by the injected clock fetches it again", async () => {
    const reader = pubsubPushReader();
    const bearer = `Bearer ${await token({ exp: Math.floor(NOW / 1000) + 7200 })}`;
    const before = jwksRequests;
    for (let i = 0; i < 3; i++) {
      expect((await read(GOOD_BODY, { authorization: bearer, settings: SECURED }, reader)).kind).toBe("notifications");
    }
    expect(jwksRequests - before).toBe(1);
    await read(GOOD_BODY, { authorization: bearer, settings: SECURED, now: NOW + 3600_000 - 1 }, reader);
    expect(jwksRequests - before).toBe(1);
    await read(GOOD_BODY, { authorization: bearer, settings: SECURED, now: NOW + 3600_000 }, reader);
    expect(jwksRequests - before).toBe(2);
  });

  test("a token naming a key the cached set lacks fetches the set again, at most once a minute (rotation)", async () => {
    const reader = pubsubPushReader();
    const bearer = `Bearer ${await token({ exp: Math.floor(NOW / 1000) + 7200 })}`;
    const unknown = `Bearer ${await token({ exp: Math.floor(NOW / 1000) + 7200 }, otherKey, "key-next")}`;
    const before = jwksRequests;
    await read(GOOD_BODY, { authorization: bearer, settings: SECURED }, reader);
    await read(GOOD_BODY, { authorization: unknown, settings: SECURED, now: NOW + 59_999 }, reader);
    expect(jwksRequests - before).toBe(1);
    const rotated = await read(GOOD_BODY, { authorization: unknown, settings: SECURED, now: NOW + 60_000 }, reader);
    expect(jwksRequests - before).toBe(2);
    expect(refusal(rotated)).toEqual({ status: 403, code: "pubsub_token_invalid" });
  });

  test("keys that cannot be fetched refuse the push with 503 pubsub_keys_unavailable, and are fetched again after a backoff", async () => {
    const reader = pubsubPushReader();
    const bearer = `Bearer ${await token()}`;
    const broken = { ...SECURED, pubsub_jwks_url: `http://127.0.0.1:${jwks.port}/certs` };
    let fail = true;
    const context = (): ReadContext => ({
      settings: broken,
      now: NOW,
      fetch: (input, init) => (fail ? Promise.resolve(new Response("down", { status: 500 })) : fetch(input, init)),
    });
    const notification = {
      headers: { authorization: bearer },
      body: GOOD_BODY,
      query: "",
      contentType: "application/json",
    };
    expect(refusal(await reader(notification, context()))).toEqual({ status: 503, code: "pubsub_keys_unavailable" });
    fail = false;
    // Within the backoff (5 s on the injected clock) the failure is answered without fetching again.
    expect(refusal(await reader(notification, context()))).toEqual({ status: 503, code: "pubsub_keys_unavailable" });
    expect((await reader(notification, { ...context(), now: NOW + 5_000 })).kind).toBe("notifications");
  });
});
