import { afterEach, describe, expect, test } from "bun:test";
import { startWebhookKit, type WebhookKit } from "../../testing/webhook-test-kit.ts";

// The kit's store and bus share one SQLite file, as in the embedded default: receipt claims there.

let kit: WebhookKit;
afterEach(async () => {
  await kit?.close();
});

async function setup(): Promise<WebhookKit> {
  kit = await startWebhookKit();
  await kit.connections.createIntegration({ uniqueKey: "cal", provider: "google-calendar" });
  return kit;
}

const receive = (k: WebhookKit, channelId: string) =>
  k.receive({
    environmentId: k.environmentId,
    providerConfigKey: "cal",
    headers: { "x-provider-channel-id": channelId, "x-provider-message-number": "1" },
  });

/** The notification that owns (channel, 1) in the store, or undefined. */
const keyOwner = (k: WebhookKit, channelId: string) =>
  k.db
    .query<{ notification_id: string }, [string]>(
      "SELECT notification_id FROM webhook_notification_keys WHERE channel_id = ? AND message_number = 1",
    )
    .get(channelId)?.notification_id;

describe("the de-duplication claim at receipt (store and bus in one file)", () => {
  test("is committed with the job: the key is the notification's when receipt answers, a resend is a duplicate", async () => {
    const k = await setup();
    const first = await receive(k, "ch-claim");
    expect(keyOwner(k, "ch-claim")).toBe(first.notificationId);
    expect(await receive(k, "ch-claim")).toMatchObject({ notificationId: first.notificationId, duplicate: true });
  });

  test("leaves no claim when the job cannot be written, so the upstream's resend is recorded", async () => {
    const k = await setup();
    k.db.exec("ALTER TABLE bus_jobs RENAME TO bus_jobs_away");
    await expect(receive(k, "ch-failed")).rejects.toThrow();
    expect(keyOwner(k, "ch-failed")).toBeUndefined();
    k.db.exec("ALTER TABLE bus_jobs_away RENAME TO bus_jobs");
    const resent = await receive(k, "ch-failed");
    expect(resent.duplicate).toBeFalsy();
    expect(keyOwner(k, "ch-failed")).toBe(resent.notificationId);
  });

  test("is not made for a notification whose channel receipt could not check", async () => {
    const k = await setup();
    k.channelDown = true;
    const unchecked = await receive(k, "ch-unchecked");
    expect(unchecked.notificationId).toMatch(/^ntf_/);
    // The worker claims it once it has checked the channel (it cannot while the registry is down).
    expect(keyOwner(k, "ch-unchecked")).toBeUndefined();
  });
});
