import { afterEach, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { ManualClock } from "@junction/platform";
import { startTestJunction } from "../support/embedded-junction.ts";
import { eventsUri, googHeaders, notify, setupCalendar, startCustomerReceiver } from "./notifications-kit.ts";

// Successful notification receipts kept as per-minute totals (the default): stopping writes the minute so far.

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe("notification receipts as per-minute totals", () => {
  test("stopping writes the minute so far: after a restart on the same data dir, its total is in the log", async () => {
    const minute = Date.UTC(2026, 10, 21, 12, 0, 0);
    const clock = new ManualClock(minute + 1_000);
    const j = await startTestJunction({ clock });
    const rx = startCustomerReceiver();
    cleanups.push(() => rx.stop());
    await setupCalendar(j, [`${rx.url}/hook`]);
    for (let i = 0; i < 3; i++) {
      const headers = googHeaders(eventsUri("nobody@example.com"), { channelId: `stop-${i}` });
      expect((await notify(j, headers)).status).toBe(200);
    }
    await clock.advance(20_000);
    await j.close({ keepData: true });
    cleanups.push(() => rmSync(j.dataDir, { recursive: true, force: true }));

    const again = await startTestJunction({ dataDir: j.dataDir, clock });
    cleanups.push(() => again.close());
    const res = await again.api("GET", "/logs/operations?kind=notification_received");
    expect(res.body.data).toEqual([
      expect.objectContaining({
        status: "success",
        integration: "cal",
        title: "notification for cal: recorded ×3",
        count: 3,
        period: { start: new Date(minute).toISOString(), end: new Date(minute + 21_000).toISOString() },
      }),
    ]);
  }, 60_000);
});
