import { afterEach, describe, expect, test } from "bun:test";
import { startWebhookKit, type WebhookKit } from "../../testing/webhook-test-kit.ts";

// A batch provider's request (Microsoft Graph's `{"value":[...]}`) is written once, not its body once
// per item: what receipt and the worker store is bounded by a small multiple of the request's size.

const SUBSCRIPTION = "7f105c7d-2dc5-4530-97cd-4e7ae6534c07";
const CLIENT_STATE = "client-state-of-olga-0123456789";
const HEADERS = { "content-type": "application/json; charset=utf-8", "user-agent": "Microsoft-Graph-Notifications" };

let kit: WebhookKit | undefined;
afterEach(async () => {
  await kit?.close();
  kit = undefined;
});

/** A change notification as Graph sends it, rich ones padded by `pad` bytes of encrypted content. */
function graphItem(i: number, pad: number): Record<string, unknown> {
  const id = `AAMkAGI2TG93AAA=${String(i).padStart(6, "0")}`;
  return {
    subscriptionId: SUBSCRIPTION,
    clientState: CLIENT_STATE,
    changeType: "updated",
    resource: `Users/olga/Events/${id}`,
    subscriptionExpirationDateTime: "2026-12-01T11:00:00.0000000Z",
    tenantId: "84bd8158-6d4d-4958-8b9f-9d6445542f95",
    resourceData: { "@odata.type": "#Microsoft.Graph.Event", "@odata.id": `Users/olga/Events/${id}`, id },
    ...(pad > 0 ? { encryptedContent: { data: "Q".repeat(pad), encryptionCertificateId: "cert-1" } } : {}),
  };
}

async function setup(): Promise<WebhookKit> {
  const k = await startWebhookKit();
  kit = k;
  await k.connections.createIntegration({ uniqueKey: "outlook", provider: "microsoft-outlook-calendar" });
  await k.connections.createConnection({ providerConfigKey: "outlook", connectionId: "olga" });
  await k.channelStore.recordWatch({
    environmentId: k.environmentId,
    channelId: SUBSCRIPTION,
    resourceId: "",
    providerConfigKey: "outlook",
    connectionId: "olga",
    resourceUri: "",
    expiration: null,
    token: CLIENT_STATE,
    at: k.clock.now(),
  });
  return k;
}

/** The database's size once every write is in it (the WAL checkpointed into the file), and what of it is in use. */
function storedBytes(k: WebhookKit): { file: number; inUse: number } {
  k.db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  const pragma = (name: string) => (k.db.query(`PRAGMA ${name}`).get() as Record<string, number>)[name] ?? 0;
  const size = pragma("page_size");
  return { file: pragma("page_count") * size, inUse: (pragma("page_count") - pragma("freelist_count")) * size };
}

/** Sends a batch of `count` items; what it wrote to the bus at receipt, and in all once forwarded. */
async function measure(count: number, pad: number) {
  const k = await setup();
  const body = new TextEncoder().encode(
    JSON.stringify({ value: Array.from({ length: count }, (_, i) => graphItem(i, pad)) }),
  );
  const requestBytes = body.byteLength + Object.entries(HEADERS).reduce((n, [k, v]) => n + k.length + v.length, 0);
  let enqueued = 0;
  const enqueue = k.bus.enqueue.bind(k.bus);
  k.bus.enqueue = (subject, data, options) => {
    enqueued += data.byteLength;
    return enqueue(subject, data, options);
  };
  const before = storedBytes(k);
  const res = await k.receive({
    environmentId: k.environmentId,
    providerConfigKey: "outlook",
    headers: HEADERS,
    contentType: HEADERS["content-type"],
    body,
  });
  expect(res.acceptStatus).toBe(202);
  expect(res.notificationIds).toHaveLength(count);
  // Every item forwarded, each its own message, de-duplicated on its own.
  const deadline = Date.now() + 20_000;
  let messages = 0;
  while (messages < count && Date.now() < deadline) {
    messages = (await k.store.listMessages(k.environmentId, {}, count + 1)).length;
    await new Promise((resolve) => setImmediate(resolve));
  }
  expect(messages).toBe(count);
  const after = storedBytes(k);
  return { requestBytes, enqueued, grown: after.file - before.file, kept: after.inUse - before.inUse, k };
}

describe("a batch's bytes written", () => {
  test("a 108 KiB batch of 100 items: receipt writes about the request once; what stays once forwarded is under 3x", async () => {
    const { requestBytes, enqueued, grown, kept } = await measure(100, 680);
    expect(requestBytes).toBeGreaterThan(100 * 1024);
    expect(requestBytes).toBeLessThan(116 * 1024);
    // Receipt's one job (before: the whole body once per item, 100x).
    expect(enqueued).toBeLessThan(1.5 * requestBytes);
    // What stays: 100 forward messages (each its item), their indexes, the items' de-duplication keys.
    expect(kept).toBeLessThan(3 * requestBytes);
    // The file, the job's pages (freed once it was processed) included: measured 3.2x.
    expect(grown).toBeLessThan(4 * requestBytes);
  }, 30_000);

  test("1000 small items: receipt writes a small multiple of the request, not the body 1000 times", async () => {
    const { requestBytes, enqueued } = await measure(1000, 0);
    expect(enqueued).toBeLessThan(3 * requestBytes);
  }, 60_000);

  test("a batch sent again (its 2xx lost) forwards nothing twice", async () => {
    const { k } = await measure(20, 0);
    const body = new TextEncoder().encode(
      JSON.stringify({ value: Array.from({ length: 20 }, (_, i) => graphItem(i, 0)) }),
    );
    await k.receive({ environmentId: k.environmentId, providerConfigKey: "outlook", headers: HEADERS, body });
    const duplicates = () => k.logs.filter((line) => line.includes("duplicate notification not forwarded")).length;
    const deadline = Date.now() + 20_000;
    while (duplicates() < 20 && Date.now() < deadline) await new Promise((resolve) => setImmediate(resolve));
    expect(duplicates()).toBe(20);
    expect(await k.store.listMessages(k.environmentId, {}, 50)).toHaveLength(20);
  }, 30_000);
});

describe("a batch recorded as one job", () => {
  test("each item is still checked when processed: an integration deleted after receipt forwards none", async () => {
    const k = await setup();
    k.channelDown = true; // holds the worker back: the items' channel checks fail, the job is tried again
    const body = new TextEncoder().encode(JSON.stringify({ value: [graphItem(1, 0), graphItem(2, 0)] }));
    const res = await k.receive({
      environmentId: k.environmentId,
      providerConfigKey: "outlook",
      headers: HEADERS,
      body,
    });
    expect(res.notificationIds).toHaveLength(2);
    const logged = (text: string) => k.logs.filter((line) => line.includes(text)).length;
    const deadline = Date.now() + 20_000;
    while (logged("notification not processed") === 0 && Date.now() < deadline) {
      await new Promise((resolve) => setImmediate(resolve));
    }
    await k.connections.deleteIntegration({ uniqueKey: "outlook", force: true });
    k.channelDown = false;
    await k.clock.advance(1000);
    while (logged("integration no longer exists") < 2 && Date.now() < deadline) {
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(logged("integration no longer exists")).toBe(2);
    expect(await k.store.listMessages(k.environmentId, {}, 10)).toEqual([]);
  }, 30_000);
});
