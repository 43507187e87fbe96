import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Clock, TimerHandle } from "@junction/platform";
import type { Page } from "playwright-core";
import { TEST_SECRET_KEY } from "../support/embedded-junction.ts";
import { waitFor } from "../support/wait-for.ts";
import { type Browser, goTo, launchChromium, logIn, screenshot } from "./dashboard-browser-kit.ts";
import { eventsUri, googHeaders, notify } from "./notifications-kit.ts";
import { CALENDAR, CONNECTION, MAIL, type ProxyHarness, startProxyHarness } from "./proxy-kit.ts";

// The Logs page with successful proxy calls and notification receipts as per-minute totals (the default): a
// total's row reads "×N calls, min–max ms (mean …)" where one call's reads its duration, and its page shows the
// period.

const STEP_MS = 120_000;

/** Real time (so proxy calls have real latencies) shifted by jumps that fire the timers they pass. */
class JumpClock implements Clock {
  // One second into a minute: the calls of the test fall in one minute.
  private offset = 61_000 - (Date.now() % 60_000);
  private timers: { at: number; fn: () => void; cancelled: boolean }[] = [];
  now(): number {
    return Date.now() + this.offset;
  }
  setTimer(fn: () => void, ms: number): TimerHandle {
    const timer = { at: this.now() + ms, fn, cancelled: false };
    this.timers.push(timer);
    return {
      cancel: () => {
        timer.cancelled = true;
      },
    };
  }
  jump(ms: number): void {
    this.offset += ms;
    const due = this.timers.filter((t) => !t.cancelled && t.at <= this.now()).sort((a, b) => a.at - b.at);
    this.timers = this.timers.filter((t) => !due.includes(t));
    for (const t of due) t.fn();
  }
}

const clock = new JumpClock();
let h: ProxyHarness;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  h = await startProxyHarness({ clock });
  for (let i = 0; i < 12; i++) expect((await h.proxy("GET", `/echo/n${i}`)).status).toBe(200);
  await h.proxy("GET", "/status/503", { headers: { "provider-config-key": MAIL, retries: "0" } });
  for (let i = 0; i < 3; i++) {
    const headers = googHeaders(eventsUri("lee@example.com"), { channelId: `logs-totals-${i}` });
    expect((await notify(h.junction, headers, { key: CALENDAR })).status).toBe(200);
  }
  clock.jump(60_000);
  await waitFor(
    "the minute's totals and the failure in the log",
    async () => (await h.junction.api("GET", "/logs/operations?kind=proxy_call")).body.data?.length === 2,
  );
  await waitFor(
    "the minute's notifications received in the log",
    async () => (await h.junction.api("GET", "/logs/operations?kind=notification_received")).body.data?.length === 1,
  );
  browser = await launchChromium();
  page = browser.page;
  await logIn(page, h.junction.url, TEST_SECRET_KEY);
}, STEP_MS);

afterAll(async () => {
  await browser?.close();
  await h?.close();
});

const cells = (selector: string) =>
  page.$$eval(selector, (rows) =>
    rows.map((row) => Array.from(row.querySelectorAll("td"), (td) => td.textContent?.trim() ?? "")),
  );

describe("the Logs page with proxy call totals", () => {
  test(
    "a total's row reads its count and latency range; its page the calls and the minute they fell in",
    async () => {
      await goTo(page, "#/logs", "logs");
      const rows = await cells("#operations tbody tr");
      const total = rows.find((r) => r[2] === "GET ×12 → 200");
      expect(total?.slice(3, 6)).toEqual([CALENDAR, CONNECTION, "success"]);
      expect(total?.[6]).toMatch(/^×12 calls, [\d.]+–[\d.]+ ms \(mean [\d.]+ ms\)$/);
      const failure = rows.find((r) => r[2] === "GET /status/503 → 503");
      expect(failure?.[6]).toMatch(/^\d+ ms$/);
      await screenshot(page, "logs-totals");
      await page.setViewportSize({ width: 390, height: 844 });
      await screenshot(page, "logs-totals-390");
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      await page.setViewportSize({ width: 1280, height: 860 });

      await page.click('#operations tbody tr:has(td:text-is("GET ×12 → 200")) a');
      await page.waitForSelector("#operation");
      const detail = (await page.textContent("#operation .card")) ?? "";
      expect(detail).toMatch(/Calls\s*×12 calls, [\d.]+–[\d.]+ ms \(mean [\d.]+ ms\)/);
      expect(detail).toContain("Period");
      expect(detail).not.toContain("Took");
      expect(await page.textContent("#no-messages")).toContain("count and latency");
      await screenshot(page, "logs-totals-operation");
    },
    STEP_MS,
  );

  test(
    "a total of notifications received reads their count; its page says each one's delivery names it",
    async () => {
      await goTo(page, "#/logs?kind=notification_received", "logs");
      const rows = await cells("#operations tbody tr");
      const total = rows.find((r) => r[2] === `notification for ${CALENDAR}: recorded ×3`);
      expect(total?.[5]).toBe("success");
      expect(total?.[6]).toMatch(/^×3 notifications, [\d.]+–[\d.]+ ms \(mean [\d.]+ ms\)$/);
      await page.click(`#operations tbody tr:has(td:text-is("notification for ${CALENDAR}: recorded ×3")) a`);
      await page.waitForSelector("#operation");
      expect((await page.textContent("#operation .card")) ?? "").toMatch(/Notifications\s*×3 notifications/);
      expect(await page.textContent("#no-messages")).toContain("each one's delivery names it");
    },
    STEP_MS,
  );
});
