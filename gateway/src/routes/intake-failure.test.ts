import { afterEach, describe, expect, test } from "bun:test";
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { ReceiveNotificationsResponseSchema } from "@junction/contracts/webhook/v1/webhook_service_pb";
import { createLogger, JunctionError, toConnectError } from "@junction/platform";
import { startWebhookKit, type WebhookKit } from "@junction/webhook-service/testing/webhook-test-kit";
import type { GatewayClients } from "../clients.ts";
import { createGateway } from "../gateway.ts";
import { INTAKE_RETRY_AFTER_SECONDS } from "./intake-failure.ts";

// A notification is answered 2xx only once recorded; when a dependency failed, 503 with Retry-After
// (upstreams resend only on 500/502/503/504); a refusal of the notification itself keeps its 4xx.

type Webhook = GatewayClients["webhook"];

function gatewayWith(webhook: Partial<Webhook>) {
  const lines: string[] = [];
  const gateway = createGateway({
    clients: { webhook } as GatewayClients,
    baseUrl: "http://j.test",
    logger: createLogger({ sink: (line) => void lines.push(line) }),
  });
  const post = () =>
    gateway.fetch(
      new Request("http://j.test/webhook/env_1/cal", {
        method: "POST",
        headers: { "x-goog-channel-id": "ch-1", "x-goog-message-number": "7" },
      }),
    );
  return { post, lines };
}

/** A webhook client whose ReceiveNotifications call fails with `err`. */
const failing = (err: unknown): Partial<Webhook> => ({
  receiveNotifications: async () => {
    throw err;
  },
});

/** A webhook client whose call answers, with the item's error (as a store error is reported per item). */
const itemError = (status: Code, code: string, message: string): Partial<Webhook> => ({
  receiveNotifications: async () =>
    create(ReceiveNotificationsResponseSchema, {
      results: [{ outcome: { case: "error", value: { status, code, message } } }],
    }),
});

const nodeError = (code: string, message: string) => Object.assign(new Error(message), { code });

describe("a notification not recorded because a dependency failed", () => {
  const failures: [string, Partial<Webhook>][] = [
    [
      "a reset connection (connect-node's Aborted, read ECONNRESET)",
      failing(new ConnectError("read ECONNRESET", Code.Aborted, undefined, undefined, nodeError("ECONNRESET", "x"))),
    ],
    ["a refused connection", failing(new ConnectError("connect ECONNREFUSED 127.0.0.1:1", Code.Unavailable))],
    ["a peer killed mid-call", failing(new ConnectError("http/2 stream closed with error code CANCEL", Code.Canceled))],
    ["a timeout", failing(new ConnectError("the operation timed out", Code.DeadlineExceeded))],
    ["the service's unknown error (a store that failed)", failing(new ConnectError("internal error", Code.Internal))],
    ["a store error reported for the item", itemError(Code.Internal, "internal_error", "internal error")],
    ["an unknown failure", failing(nodeError("SQLITE_BUSY", "database is locked"))],
    ["a call the gateway could not make at all", failing(new TypeError("fetch failed"))],
    ["a dependency's overload (ResourceExhausted)", failing(new ConnectError("calm down", Code.ResourceExhausted))],
  ];
  for (const [name, webhook] of failures) {
    test(`${name}: 503 service_unavailable with Retry-After, naming no internals`, async () => {
      const { post, lines } = gatewayWith(webhook);
      const res = await post();
      expect(res.status).toBe(503);
      expect(res.headers.get("retry-after")).toBe(String(INTAKE_RETRY_AFTER_SECONDS));
      const body = await res.text();
      expect(JSON.parse(body).error.code).toBe("service_unavailable");
      expect(body).not.toMatch(/ECONN|SQLITE|timed out|CANCEL|internal error|fetch failed/);
      // The operator sees why in the log.
      expect(lines.join("\n")).toContain("a dependency failed");
    });
  }

  test("a dependency's own stable code (Unavailable) is kept, with Retry-After", async () => {
    const err = toConnectError(new JunctionError("bus_unavailable", "The bus is unavailable.", Code.Unavailable));
    const res = await gatewayWith(failing(err)).post();
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe(String(INTAKE_RETRY_AFTER_SECONDS));
    expect((await res.json()).error).toEqual({ code: "bus_unavailable", message: "The bus is unavailable." });
  });

  const refusals: [string, JunctionError, number][] = [
    ["an unknown webhook URL", new JunctionError("unknown_webhook_url", "No such.", Code.NotFound), 404],
    ["a bad token", new JunctionError("pubsub_token_invalid", "Bad token.", Code.Unauthenticated), 401],
    ["a bad body", new JunctionError("invalid_notification", "Bad.", Code.InvalidArgument), 400],
    ["a body too large", new JunctionError("request_too_large", "Too big.", Code.ResourceExhausted), 413],
  ];
  for (const [name, refusal, status] of refusals) {
    test(`a refusal of the notification itself keeps its code: ${name} → ${status}`, async () => {
      const res = await gatewayWith(failing(toConnectError(refusal))).post();
      expect(res.status).toBe(status);
      expect(res.headers.get("retry-after")).toBeNull();
      expect((await res.json()).error.code).toBe(refusal.code);
    });
  }
});

describe("the webhook service's store failing while recording", () => {
  let kit: WebhookKit | undefined;
  afterEach(async () => {
    await kit?.close();
  });

  test("answers 503 with Retry-After, and the same notification is recorded once the store is back", async () => {
    kit = await startWebhookKit();
    await kit.connections.createIntegration({ uniqueKey: "cal", provider: "google-calendar" });
    const gateway = createGateway({
      clients: { webhook: kit.client } as GatewayClients,
      baseUrl: "http://j.test",
      logger: createLogger({ sink: () => {} }),
    });
    const post = () =>
      gateway.fetch(
        new Request(`http://j.test/webhook/${kit?.environmentId}/cal`, {
          method: "POST",
          headers: { "x-goog-channel-id": "ch-store", "x-goog-message-number": "1" },
        }),
      );
    const enqueue = kit.bus.enqueue.bind(kit.bus);
    kit.bus.enqueue = async () => {
      throw nodeError("SQLITE_FULL", "database or disk is full");
    };
    const failed = await post();
    expect(failed.status).toBe(503);
    expect(failed.headers.get("retry-after")).toBe(String(INTAKE_RETRY_AFTER_SECONDS));
    expect((await failed.json()).error.code).toBe("service_unavailable");

    kit.bus.enqueue = enqueue;
    const resent = await post();
    expect(resent.status).toBe(200);
    expect((await resent.json()).data.duplicate).toBe(false);
  });
});
