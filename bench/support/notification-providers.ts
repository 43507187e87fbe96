/**
 * The providers of bench/notifications.bench.ts: what each one's upstream posts to its
 * integration's webhook URL, and how a Junction is set up to take it. Selected with BENCH_PROVIDERS
 * (a comma-separated list of PROVIDER_CASES; all by default; calendar, the reference, always runs).
 *
 * - calendar: Google Calendar's header-only notifications, matched by watch URI (rule 1).
 * - gmail: Pub/Sub push requests (JSON envelope, base64 data {emailAddress, historyId}, a new
 *   messageId each), matched by email (connections with metadata.emailAddress); no push authentication.
 * - gmail-oidc: the same with the OIDC bearer token verified (the integration's provider_settings,
 *   set through the REST API, name the audience and the JWKS URL; the JWKS is served by the bench, the
 *   tokens signed before the rounds).
 * - outlook: Microsoft Graph change notification batches {value:[...]}, one item per request, each
 *   naming a subscription created through Junction's proxy (POST /v1.0/subscriptions answered by a local
 *   fake Graph), which the proxy's channel tap recorded in the channel registry with its clientState;
 *   carrying that clientState; matched by channel.
 * - outlook-batch10: the same, 10 items per request (figures per notification, i.e. per item).
 */
import { randomUUID } from "node:crypto";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { addIntegration, api, CONNECTIONS, type RunningJunction } from "./notification-contenders.ts";

export const PROVIDER_CASES = ["calendar", "gmail", "gmail-oidc", "outlook", "outlook-batch10"] as const;
export type ProviderCase = (typeof PROVIDER_CASES)[number];

/** BENCH_PROVIDERS: the cases asked for, in PROVIDER_CASES' order, calendar always first. */
export function selectProviders(value: string | undefined): ProviderCase[] {
  const asked = (value ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
  const unknown = asked.filter((s) => !(PROVIDER_CASES as readonly string[]).includes(s));
  if (unknown.length > 0) {
    throw new Error(`BENCH_PROVIDERS: unknown ${unknown.join(", ")} (known: ${PROVIDER_CASES.join(", ")})`);
  }
  if (asked.length === 0) return [...PROVIDER_CASES];
  return PROVIDER_CASES.filter((p) => p === "calendar" || asked.includes(p));
}

/** One request the driver posts to a webhook URL. */
export interface InboundRequest {
  headers: Record<string, string>;
  body?: string;
}

/** What one provider's upstream sends, to one integration of one Junction. */
export interface ProviderTraffic {
  provider: ProviderCase;
  /** The integration (provider config key) the notifications are for. */
  integration: string;
  webhookUrl: string;
  /** Notifications per request (a Graph batch's items). */
  perRequest: number;
  /** What Junction answers a stored request. */
  acceptStatus: number;
  /** The `i`-th request of the run labelled `run` (a label is never used twice: nothing is de-duplicated). */
  request(run: string, i: number): InboundRequest;
}

/** Email of the `i`-th connection's mailbox (gmail) and the calendar URIs' user (calendar). */
export const mailboxOf = (i: number) => `user${i}@example.com`;

const GMAIL_SUBSCRIPTION = "projects/junction-bench/subscriptions/gmail-push";

/** A Pub/Sub push of Gmail's notification for mailbox `connection` (https://developers.google.com/workspace/gmail/api/guides/push). */
export function pubsubPush(messageId: string, connection: number, historyId: number): string {
  const data = Buffer.from(JSON.stringify({ emailAddress: mailboxOf(connection), historyId })).toString("base64");
  return JSON.stringify({
    message: { data, messageId, message_id: messageId, publishTime: new Date().toISOString(), attributes: {} },
    subscription: GMAIL_SUBSCRIPTION,
  });
}

/** Gmail's traffic: one push per request, the mailboxes of `connections` in turn, `tokens` in turn when given. */
export function gmailTraffic(
  provider: "gmail" | "gmail-oidc",
  integration: string,
  webhookUrl: string,
  connections: number,
  tokens: string[] = [],
): ProviderTraffic {
  return {
    provider,
    integration,
    webhookUrl,
    perRequest: 1,
    acceptStatus: 200,
    request: (run, i) => ({
      headers: {
        "content-type": "application/json",
        ...(tokens.length > 0 ? { authorization: `Bearer ${tokens[i % tokens.length]}` } : {}),
      },
      body: pubsubPush(`${run}-${i}`, i % connections, 1000 + i),
    }),
  };
}

/** A Graph subscription the channel registry knows: its id and the clientState it was created with. */
export interface Subscription {
  id: string;
  clientState: string;
}

/** Graph's traffic: batches of `perRequest` change notifications, the subscriptions in turn. */
export function outlookTraffic(
  provider: "outlook" | "outlook-batch10",
  integration: string,
  webhookUrl: string,
  subscriptions: Subscription[],
  perRequest: number,
): ProviderTraffic {
  const expiry = new Date(Date.now() + 3 * 24 * 3600_000).toISOString();
  return {
    provider,
    integration,
    webhookUrl,
    perRequest,
    acceptStatus: 202,
    request: (run, i) => {
      const value = Array.from({ length: perRequest }, (_, j) => {
        const k = i * perRequest + j;
        const sub = subscriptions[k % subscriptions.length] as Subscription;
        // https://learn.microsoft.com/en-us/graph/change-notifications-delivery-webhooks: an item without resource data.
        const event = `AAMk-${run}-${k}`;
        return {
          subscriptionId: sub.id,
          clientState: sub.clientState,
          changeType: "updated",
          resource: `Users/user${k % subscriptions.length}/Events/${event}`,
          resourceData: {
            "@odata.type": "#Microsoft.Graph.Event",
            "@odata.id": `Users/user${k % subscriptions.length}/Events/${event}`,
            "@odata.etag": 'W/"DwAAABYAAAA"',
            id: event,
          },
          subscriptionExpirationDateTime: expiry,
          tenantId: "bench-tenant",
        };
      });
      return { headers: { "content-type": "application/json" }, body: JSON.stringify({ value }) };
    },
  };
}

/**
 * A local stand-in for Graph's subscription endpoint: POST /v1.0/subscriptions answers 201 with a new
 * subscription id, echoing the request as Graph does
 * (https://learn.microsoft.com/en-us/graph/api/subscription-post-subscriptions). The proxy's channel tap
 * records what it sees (the id from the answer, the clientState from the request).
 */
export function startFakeGraph() {
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const url = new URL(req.url);
      if (req.method !== "POST" || url.pathname !== "/v1.0/subscriptions") return new Response(null, { status: 404 });
      const sent = (await req.json()) as Record<string, unknown>;
      return Response.json(
        {
          "@odata.context": "https://graph.microsoft.com/v1.0/$metadata#subscriptions/$entity",
          id: randomUUID(),
          resource: sent.resource,
          changeType: sent.changeType,
          clientState: sent.clientState,
          notificationUrl: sent.notificationUrl,
          expirationDateTime: sent.expirationDateTime,
        },
        { status: 201 },
      );
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, stop: () => server.stop(true) };
}

/** The audience the gmail-oidc integration expects, and the push subscription's service account. */
export const PUSH_AUDIENCE = "https://junction.bench/webhook/gmail-oidc";
const PUSH_SERVICE_ACCOUNT = "push@junction-bench.iam.gserviceaccount.com";

/**
 * A key set served locally (what `pubsub_jwks_url` points at) and `count` RS256 push tokens signed with
 * it, valid for an hour (Pub/Sub's tokens: https://cloud.google.com/pubsub/docs/authenticate-push-subscriptions).
 * Also a token signed by a key not in the set, to check that verification is in force.
 */
export async function startPushKeys(count: number) {
  const kid = "bench-key-1";
  const { publicKey, privateKey } = await generateKeyPair("RS256", { extractable: true });
  const jwk = { ...(await exportJWK(publicKey)), kid, alg: "RS256", use: "sig" };
  const body = JSON.stringify({ keys: [jwk] });
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: () => new Response(body, { headers: { "content-type": "application/json" } }),
  });
  const sign = (key: CryptoKey, i: number) =>
    new SignJWT({ email: PUSH_SERVICE_ACCOUNT, email_verified: true, jti: `bench-${i}` })
      .setProtectedHeader({ alg: "RS256", kid, typ: "JWT" })
      .setIssuer("https://accounts.google.com")
      .setAudience(PUSH_AUDIENCE)
      .setSubject("1234567890")
      .setIssuedAt()
      .setExpirationTime("1h")
      .sign(key);
  const tokens = await Promise.all(Array.from({ length: count }, (_, i) => sign(privateKey, i)));
  const stranger = await sign((await generateKeyPair("RS256")).privateKey, 0);
  return { jwksUrl: `http://127.0.0.1:${server.port}/certs`, tokens, stranger, stop: () => server.stop(true) };
}

/** Gmail on `junction`: integration "gmail", connections whose metadata.emailAddress is their mailbox. */
export async function setUpGmail(junction: RunningJunction): Promise<ProviderTraffic> {
  const url = await addIntegration(junction, "gmail", "google-mail", (i) => ({
    metadata: { emailAddress: mailboxOf(i) },
  }));
  return gmailTraffic("gmail", "gmail", url, CONNECTIONS);
}

/**
 * Gmail with push authentication on `junction`: integration "gmail-oidc" whose provider settings, set
 * through POST /integrations, name PUSH_AUDIENCE and the bench's key set. Checks that Junction returns
 * them, and that verification is in force: a push without a token, and one signed by a key not in the
 * set, are refused.
 */
export async function setUpGmailOidc(
  junction: RunningJunction,
  keys: Awaited<ReturnType<typeof startPushKeys>>,
): Promise<ProviderTraffic> {
  const settings = { pubsub_audience: PUSH_AUDIENCE, pubsub_jwks_url: keys.jwksUrl };
  const url = await addIntegration(
    junction,
    "gmail-oidc",
    "google-mail",
    (i) => ({ metadata: { emailAddress: mailboxOf(i) } }),
    { provider_settings: settings },
  );
  const stored = (await api(junction.url, "GET", "/integrations/gmail-oidc")).data.provider_settings ?? {};
  for (const [key, value] of Object.entries(settings)) {
    if (stored[key] !== value) {
      throw new Error(`gmail-oidc: the integration's ${key} reads ${JSON.stringify(stored[key])}, not ${value}`);
    }
  }
  const traffic = gmailTraffic("gmail-oidc", "gmail-oidc", url, CONNECTIONS, keys.tokens);
  for (const [authorization, status] of [
    [undefined, 401],
    [`Bearer ${keys.stranger}`, 403],
  ] as const) {
    const { headers, body } = traffic.request("probe", 0);
    const { authorization: _valid, ...rest } = headers;
    const res = await fetch(url, {
      method: "POST",
      headers: { ...rest, ...(authorization ? { authorization } : {}) },
      body,
    });
    await res.arrayBuffer();
    if (res.status !== status) {
      throw new Error(
        `gmail-oidc: a push ${authorization ? "with a stranger's token" : "without a token"} answered ${res.status}, not ${status}: verification is not in force`,
      );
    }
  }
  return traffic;
}
