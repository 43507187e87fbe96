import { afterEach, describe, expect, test } from "bun:test";
import { createLogger } from "@junction/platform";
import { MAX_NOTIFICATION_BODY_BYTES } from "@junction/providers";
import type { MatchedNotification } from "@junction/wiring";
import { readAllWith, testNotificationAdapter } from "@junction/webhook-service/testing/test-reader";
import { startWebhookKit, type WebhookKit } from "@junction/webhook-service/testing/webhook-test-kit";
import type { GatewayClients } from "../clients.ts";
import { createGateway } from "../gateway.ts";

// The webhook route hands the webhook service the body (bounded), the content type
// and the query string; the bound is the providers' (their adapters'), not the gateway's own.

let kit: WebhookKit;
afterEach(async () => {
  await kit?.close();
});

async function start(
  seen: MatchedNotification[],
  options: { testReader?: boolean; maxItems?: number; env?: Record<string, string>; strictChannels?: boolean } = {},
) {
  const maxItems = options.maxItems ?? 5;
  kit = await startWebhookKit({
    sinks: [{ name: "recorder", onNotification: async (n) => void seen.push(n) }],
    ...(options.testReader ? { notificationAdapterOf: readAllWith(testNotificationAdapter({ maxItems })) } : {}),
    ...(options.env ? { env: options.env } : {}),
  });
  await kit.connections.createIntegration({
    uniqueKey: "cal",
    provider: "google-calendar",
    ...(options.strictChannels ? { strictChannels: true } : {}),
  });
  const gateway = createGateway({
    clients: { webhook: kit.client } as GatewayClients,
    baseUrl: "http://j.test",
    logger: createLogger({ sink: () => {} }),
  });
  const post = (query: string, body: string | undefined, headers: Record<string, string>) =>
    gateway.fetch(
      new Request(`http://j.test/webhook/${kit.environmentId}/cal${query}`, {
        method: "POST",
        body,
        // As an HTTP server's request has it (a Request built here gets none).
        headers: { ...headers, "content-length": String(body?.length ?? 0) },
      }),
    );
  return { post };
}

describe("POST /webhook/{environment}/{integration}", () => {
  test("passes the body, content type and query string on to the webhook service", async () => {
    const seen: MatchedNotification[] = [];
    const { post } = await start(seen);
    const res = await post("?validationToken=abc", '{"value":[1]}', {
      "content-type": "application/json",
      "x-provider-channel-id": "ch-1",
      "x-provider-message-number": "1",
    });
    expect(res.status).toBe(200);
    const deadline = Date.now() + 5000;
    while (seen.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(seen).toHaveLength(1);
    expect(new TextDecoder().decode(seen[0]?.body)).toBe('{"value":[1]}');
    expect(seen[0]).toMatchObject({ contentType: "application/json", query: "validationToken=abc" });
  });

  test("refuses a body above the providers' largest limit with 413 request_too_large", async () => {
    const { post } = await start([]);
    const res = await post("", "x".repeat(MAX_NOTIFICATION_BODY_BYTES + 1), { "x-provider-channel-id": "ch-2" });
    expect(res.status).toBe(413);
    expect((await res.json()).error.code).toBe("request_too_large");
  });

  test("answers a provider's handshake exactly as its reader says (status, type, body, nosniff), recording nothing", async () => {
    const seen: MatchedNotification[] = [];
    const { post } = await start(seen, { testReader: true });
    const res = await post("?validationToken=t", JSON.stringify({ handshake: "token-123", status: 200 }), {
      "content-type": "application/json",
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/plain");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(await res.text()).toBe("token-123");
    const huge = await post("", JSON.stringify({ handshake: "x", repeat: 70_000 }), {});
    expect(huge.status).toBe(400);
    expect((await huge.json()).error.code).toBe("invalid_notification");
    expect(seen).toHaveLength(0);
  });

  test("answers a batch with the reader's accept status once every item is recorded", async () => {
    const seen: MatchedNotification[] = [];
    const { post } = await start(seen, { testReader: true });
    const batch = { acceptStatus: 202, items: [{ dedupeKey: "a" }, { dedupeKey: "b" }] };
    const res = await post("", JSON.stringify(batch), { "content-type": "application/json" });
    expect(res.status).toBe(202);
    const { data } = await res.json();
    expect(data.ids).toHaveLength(2);
    const tooMany = await post(
      "",
      JSON.stringify({ items: Array.from({ length: 6 }, (_, i) => ({ dedupeKey: `${i}` })) }),
      {},
    );
    expect(tooMany.status).toBe(400);
    expect((await tooMany.json()).error).toMatchObject({
      code: "invalid_notification",
      message: expect.stringContaining("at most 5"),
    });
    const deadline = Date.now() + 5000;
    while (seen.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(seen.map((n) => n.notificationId).sort()).toEqual([...data.ids].sort());
  });
});

describe("credentials at the webhook URL", () => {
  test("Authorization reaches the webhook service for the provider's reader; Cookie and Proxy-Authorization do not", async () => {
    kit = await startWebhookKit();
    await kit.connections.createIntegration({ uniqueKey: "mail", provider: "google-mail" });
    const sent: Record<string, string>[] = [];
    const webhook: GatewayClients["webhook"] = {
      ...kit.client,
      receiveNotifications: (req, options) => {
        for (const r of req.requests ?? []) sent.push({ ...r.headers });
        return kit.client.receiveNotifications(req, options);
      },
    };
    const gateway = createGateway({
      clients: { webhook } as GatewayClients,
      baseUrl: "http://j.test",
      logger: createLogger({ sink: () => {} }),
    });
    const body = "not json";
    const res = await gateway.fetch(
      new Request(`http://j.test/webhook/${kit.environmentId}/mail`, {
        method: "POST",
        body,
        headers: {
          authorization: "Bearer push-token",
          cookie: "s=1",
          "proxy-authorization": "Basic eA==",
          "content-length": String(body.length),
        },
      }),
    );
    // The Pub/Sub reader refused the body: its answer reaches the upstream as is.
    expect(res.status).toBe(400);
    expect((await res.json()).error.code).toBe("pubsub_body_invalid");
    expect(sent).toHaveLength(1);
    expect(sent[0]?.authorization).toBe("Bearer push-token");
    expect(sent[0]?.cookie).toBeUndefined();
    expect(sent[0]?.["proxy-authorization"]).toBeUndefined();
  });

  test("over an intake limit: 503 with Retry-After and a stable code, nothing recorded", async () => {
    const { post } = await start([], {
      testReader: true,
      maxItems: 1,
      env: { JUNCTION_WEBHOOK_INTAKE_INTEGRATION_RATE: "0.5", JUNCTION_WEBHOOK_INTAKE_INTEGRATION_BURST: "1" },
    });
    const item = (channelId: string) => JSON.stringify({ items: [{ channelId }] });
    expect((await post("", item("a"), {})).status).toBe(200);
    const refused = await post("", item("b"), {});
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("2");
    expect((await refused.json()).error.code).toBe("webhook_rate_limited");
  });

  test("a strict integration answers 404 unknown_channel for a channel unknown to the registry", async () => {
    const { post } = await start([], { testReader: true, maxItems: 1, strictChannels: true });
    const res = await post("", JSON.stringify({ items: [{ channelId: "made-up" }] }), {});
    expect(res.status).toBe(404);
    expect((await res.json()).error.code).toBe("unknown_channel");
  });
});
