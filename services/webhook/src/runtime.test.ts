import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { idTimeBound } from "@junction/platform";
import type { MessageRecord } from "./store/records.ts";
import { startWebhookKit, type WebhookKit } from "../testing/webhook-test-kit.ts";

const DAY = 86_400_000;
let kit: WebhookKit;

beforeEach(async () => {
  kit = await startWebhookKit({
    env: { JUNCTION_WEBHOOK_MESSAGE_RETENTION: "31d", JUNCTION_WEBHOOK_SWEEP_INTERVAL: "60s" },
  });
});
afterEach(() => kit.close());

function stored(ageMs: number, status: MessageRecord["status"], tag: string): MessageRecord {
  const at = kit.clock.now() - ageMs;
  return {
    id: `${idTimeBound("msg", at)}${tag.padEnd(16, "a")}`,
    environmentId: kit.environmentId,
    type: "forward",
    providerConfigKey: "cal",
    connectionId: "",
    notificationId: "",
    body: new TextEncoder().encode("{}"),
    status,
    attemptCount: 1,
    roundAttempts: 1,
    nextAttemptAt: status === "failed" || status === "pending" ? kit.clock.now() + DAY : null,
    lastError: null,
    deliveredEndpointIds: [],
    leaseToken: null,
    leaseUntil: null,
    createdAt: at,
    updatedAt: at,
  };
}

describe("the webhook sweep", () => {
  test("deletes succeeded and exhausted messages past the retention, keeps the rest", async () => {
    const old = [stored(40 * DAY, "succeeded", "b"), stored(35 * DAY, "exhausted", "c")];
    const kept = [stored(40 * DAY, "failed", "d"), stored(33 * DAY, "pending", "e"), stored(2 * DAY, "succeeded", "f")];
    for (const m of [...old, ...kept]) await kit.store.insertMessage(m);
    await kit.clock.advance(60_000);
    for (const m of old) expect(await kit.store.getMessage(kit.environmentId, m.id)).toBeNull();
    for (const m of kept) expect(await kit.store.getMessage(kit.environmentId, m.id)).not.toBeNull();
    expect(kit.logs.some((l) => l.includes("old webhook messages pruned") && l.includes('"pruned":2'))).toBe(true);
  });
});
