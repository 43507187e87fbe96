import type { NotificationAdapter, NotificationItem } from "@junction/providers";
import type { NotificationAdapterOf } from "../src/inbound/integration-lookup.ts";

/** What the test reader reads: a JSON body saying what the request is (no provider's format). */
export type TestRequest =
  | { handshake: string; status?: number; repeat?: number }
  | { items: Partial<NotificationItem>[]; acceptStatus?: number };

/**
 * A notification reader for tests of the inbound pipeline: the body is a TestRequest, read as is
 * (a handshake echoing a text, `repeat` times, or items with defaults filled in), at most `maxItems` items. Async
 * when `async` is set, as a reader that fetches (a JWKS) is.
 */
export function testNotificationAdapter(options: { maxItems?: number; async?: boolean } = {}): NotificationAdapter {
  const read: NotificationAdapter["read"] = (notification) => {
    const req = JSON.parse(new TextDecoder().decode(notification.body)) as TestRequest;
    if ("handshake" in req) {
      const body = new TextEncoder().encode(req.handshake.repeat(req.repeat ?? 1));
      return { kind: "handshake", status: req.status ?? 200, contentType: "text/plain", body };
    }
    const items = req.items.map((item) => ({
      channelId: undefined,
      messageNumber: null,
      resourceUri: "",
      resourceId: "",
      state: "",
      token: "",
      ...item,
    }));
    return { kind: "notifications", items, acceptStatus: req.acceptStatus };
  };
  return {
    read: options.async ? async (n, c) => read(n, c) : read,
    maxItems: options.maxItems,
    bodyLimitBytes: 1024 * 1024,
    emailKeyOf: () => null,
  };
}

/** Every provider's notifications read by `adapter` (the kit's integrations name a real provider). */
export function readAllWith(adapter: NotificationAdapter): NotificationAdapterOf {
  return () => adapter;
}
