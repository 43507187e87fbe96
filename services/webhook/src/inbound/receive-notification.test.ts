import { afterEach, describe, expect, test } from "bun:test";
import { Code, ConnectError } from "@connectrpc/connect";
import { JunctionError } from "@junction/platform";
import { providerAdapter } from "@junction/providers";
import { startWebhookKit, type WebhookKit } from "../testing/webhook-test-kit.ts";
import type { MatchedNotification, NotificationSink } from "./notification-sink.ts";
import { singleNotification } from "./receive-notification.ts";

// Issue 21, item 2: the inbound contract carries a bounded body, the content type and the query string.

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

describe("singleNotification (issue 21, item 1: what receipt accepts of an adapter's reading)", () => {
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

  test("one notification is accepted as read", () => {
    expect(singleNotification({ kind: "notifications", items: [item] })).toEqual(item);
  });

  test("none, or a batch, is refused as invalid", () => {
    const none = codeOf(() => singleNotification({ kind: "notifications", items: [] }));
    expect(none).toMatchObject({ status: Code.InvalidArgument, code: "invalid_notification" });
    const batch = codeOf(() => singleNotification({ kind: "notifications", items: [item, item] }));
    expect(batch).toMatchObject({ status: Code.InvalidArgument, message: expect.stringContaining("carries 2") });
  });

  test("a handshake is refused, not recorded; an adapter's refusal keeps its code and meaning", () => {
    const handshake = { kind: "handshake" as const, status: 200, contentType: "text/plain", body: new Uint8Array() };
    expect(codeOf(() => singleNotification(handshake))).toMatchObject({
      status: Code.InvalidArgument,
      code: "invalid_notification",
    });
    const refused = (status: number) => singleNotification({ kind: "refused", status, code: "bad_sig", message: "m" });
    expect(codeOf(() => refused(401))).toEqual({ status: Code.Unauthenticated, code: "bad_sig", message: "m" });
    expect(codeOf(() => refused(403))?.status).toBe(Code.PermissionDenied);
    expect(codeOf(() => refused(422))?.status).toBe(Code.InvalidArgument);
  });
});
