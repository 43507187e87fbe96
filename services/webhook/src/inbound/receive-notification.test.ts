import { afterEach, describe, expect, test } from "bun:test";
import { Code, ConnectError } from "@connectrpc/connect";
import { JunctionError } from "@junction/platform";
import { providerAdapter } from "@junction/providers";
import { startWebhookKit, type WebhookKit } from "../../testing/webhook-test-kit.ts";
import type { MatchedNotification, NotificationSink } from "@junction/wiring";
import { checkedReading, MAX_HANDSHAKE_BODY_BYTES } from "./notification-event.ts";

// The inbound contract carries a bounded body, the content type and the query string.

let kit: WebhookKit;
afterEach(async () => {
  await kit?.close();
});

const PROVIDER = "google-calendar";
const notification = (channelId: string) => ({ "x-provider-channel-id": channelId, "x-provider-message-number": "1" });

async function setup(seen: MatchedNotification[]): Promise<WebhookKit> {
  const sink: NotificationSink = {
    name: "recorder",
    async onNotification(n) {
      seen.push(n);
      return undefined;
    },
  };
  kit = await startWebhookKit({ sinks: [sink] });
  await kit.connections.createIntegration({ uniqueKey: "cal", provider: PROVIDER });
  return kit;
}

async function until(what: string, check: () => boolean): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe("receiving a notification with a body", () => {
  test("its body, content type and query reach the inbound worker's sinks as received", async () => {
    const seen: MatchedNotification[] = [];
    const k = await setup(seen);
    const body = new TextEncoder().encode('{"event":"changed"}');
    await k.receive({
      environmentId: k.environmentId,
      providerConfigKey: "cal",
      headers: notification("ch-body"),
      body,
      bodyLength: BigInt(body.byteLength),
      contentType: "application/json",
      query: "validationToken=abc",
    });
    await k.receive({
      environmentId: k.environmentId,
      providerConfigKey: "cal",
      headers: notification("ch-empty"),
    });
    await until("both notifications", () => seen.length === 2);
    const byChannel = (id: string) => seen.find((n) => n.headers["x-provider-channel-id"] === id);
    expect(new TextDecoder().decode(byChannel("ch-body")?.body)).toBe('{"event":"changed"}');
    expect(byChannel("ch-body")).toMatchObject({ contentType: "application/json", query: "validationToken=abc" });
    expect(byChannel("ch-empty")).toMatchObject({ contentType: "", query: "" });
    expect(byChannel("ch-empty")?.body.byteLength).toBe(0);
  });

  test("a body above the provider's limit is refused with request_too_large and not recorded", async () => {
    const seen: MatchedNotification[] = [];
    const k = await setup(seen);
    const limit = providerAdapter(PROVIDER)?.notifications?.bodyLimitBytes ?? 0;
    expect(limit).toBeGreaterThan(0);
    const send = (size: number, channelId: string) =>
      k.receive({
        environmentId: k.environmentId,
        providerConfigKey: "cal",
        headers: notification(channelId),
        body: new Uint8Array(size),
      });
    const refused = await send(limit + 1, "ch-large").catch((err: unknown) => ConnectError.from(err));
    expect(refused).toBeInstanceOf(ConnectError);
    expect((refused as ConnectError).code).toBe(Code.ResourceExhausted);
    expect((refused as ConnectError).rawMessage).toContain(`at most ${limit} bytes`);
    await send(limit, "ch-at-limit");
    await until("the notification at the limit", () => seen.length === 1);
    expect(seen[0]?.headers["x-provider-channel-id"]).toBe("ch-at-limit");
    expect(await k.store.findNotificationKey(k.environmentId, "ch-large", 1)).toBeFalsy();
  });
});

describe("checkedReading (what receipt accepts of an adapter's reading)", () => {
  const item = { channelId: "ch", messageNumber: 1, resourceUri: "u", resourceId: "r", state: "exists", token: "t" };
  const codeOf = (run: () => unknown) => {
    try {
      run();
    } catch (err) {
      if (!(err instanceof JunctionError)) throw err;
      return { status: err.status, code: err.code, message: err.message };
    }
    throw new Error("expected a refusal");
  };

  test("one notification is accepted as read, answered 200 unless the adapter says another 2xx", () => {
    expect(checkedReading({ kind: "notifications", items: [item] }, 1)).toEqual({
      kind: "notifications",
      items: [item],
      acceptStatus: 200,
    });
    const batch = checkedReading({ kind: "notifications", items: [item, item], acceptStatus: 202 }, 2);
    expect(batch).toMatchObject({ acceptStatus: 202 });
    expect(checkedReading({ kind: "notifications", items: [item], acceptStatus: 500 }, 1)).toMatchObject({
      acceptStatus: 200,
    });
  });

  test("none, or more than the adapter's maxItems, is refused as invalid, naming the limit", () => {
    const none = codeOf(() => checkedReading({ kind: "notifications", items: [] }, 1));
    expect(none).toMatchObject({ status: Code.InvalidArgument, code: "invalid_notification" });
    const batch = codeOf(() => checkedReading({ kind: "notifications", items: [item, item] }, 1));
    expect(batch).toMatchObject({ status: Code.InvalidArgument, message: expect.stringContaining("carries 2") });
    const over = codeOf(() => checkedReading({ kind: "notifications", items: [item, item, item] }, 2));
    expect(over).toMatchObject({ code: "invalid_notification", message: expect.stringContaining("at most 2") });
  });

  test("a handshake is answered as read, within a size cap; an adapter's refusal keeps its code and meaning", () => {
    const handshake = { kind: "handshake" as const, status: 200, contentType: "text/plain", body: new Uint8Array(3) };
    expect(checkedReading(handshake, 1)).toEqual(handshake);
    const huge = { ...handshake, body: new Uint8Array(MAX_HANDSHAKE_BODY_BYTES + 1) };
    expect(codeOf(() => checkedReading(huge, 1))).toMatchObject({
      status: Code.InvalidArgument,
      code: "invalid_notification",
      message: expect.stringContaining(`${MAX_HANDSHAKE_BODY_BYTES} bytes`),
    });
    expect(codeOf(() => checkedReading({ ...handshake, status: 700 }, 1))?.code).toBe("invalid_notification");
    const refused = (status: number) => checkedReading({ kind: "refused", status, code: "bad_sig", message: "m" }, 1);
    expect(codeOf(() => refused(401))).toEqual({ status: Code.Unauthenticated, code: "bad_sig", message: "m" });
    expect(codeOf(() => refused(403))?.status).toBe(Code.PermissionDenied);
    expect(codeOf(() => refused(422))?.status).toBe(Code.InvalidArgument);
    expect(codeOf(() => refused(503))?.status).toBe(Code.Unavailable);
  });
});

describe("credential headers at receipt", () => {
  test("the reader sees the request's bearer token; what is recorded never holds it", async () => {
    const seen: MatchedNotification[] = [];
    const k = await setup(seen);
    await k.connections.createIntegration({ uniqueKey: "mail", provider: "google-mail" });
    const push = (data: string) =>
      new TextEncoder().encode(JSON.stringify({ message: { data, messageId: "m-1" }, subscription: "s" }));
    const send = (body: Uint8Array) =>
      k.receive({
        environmentId: k.environmentId,
        providerConfigKey: "mail",
        headers: { authorization: "Bearer tok-secret-123", "content-type": "application/json" },
        body,
        bodyLength: BigInt(body.byteLength),
        contentType: "application/json",
      });
    // The provider's reader runs at receipt: a malformed push is refused there.
    const refused = await send(push("%%%")).catch((err: unknown) => ConnectError.from(err));
    expect((refused as ConnectError).rawMessage).toContain("base64");
    expect(k.logs.some((l) => l.includes("notification refused") && l.includes("pubsub_data_invalid"))).toBe(true);
    const data = Buffer.from(JSON.stringify({ emailAddress: "a@example.com", historyId: "7" })).toString("base64");
    await send(push(data));
    await until("the push", () => seen.length === 1);
    expect(seen[0]?.headers.authorization).toBeUndefined();
    expect(seen[0]?.headers["content-type"]).toBe("application/json");
    expect(JSON.stringify(seen[0], (_, v) => (typeof v === "bigint" ? String(v) : v))).not.toContain("tok-secret-123");
  });
});
