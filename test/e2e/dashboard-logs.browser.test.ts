import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { TEST_SECRET_KEY } from "../support/embedded-junction.ts";
import { waitFor } from "../support/wait-for.ts";
import { type Browser, goTo, launchChromium, logIn, screenshot } from "./dashboard-browser-kit.ts";
import { CALENDAR, CONNECTION, MAIL, type ProxyHarness, startProxyHarness } from "./proxy-kit.ts";

// The dashboard's Logs page (Debian's Chromium): the operations log's filters, search, paging, an
// operation's messages, the live tail, and the link from a connection's page.

const STEP_MS = 120_000;
let h: ProxyHarness;
let browser: Browser;
let page: Page;

const logged = async (n: number) =>
  waitFor(
    `${n} operations in the log`,
    async () => (await h.junction.api("GET", "/logs/operations")).body.data?.length >= n,
  );

beforeAll(async () => {
  h = await startProxyHarness({ env: { JUNCTION_LOGS_PROXY_SUCCESSES: "true" } });
  await h.proxy("GET", "/echo/one");
  await h.proxy("GET", "/status/503", { headers: { "provider-config-key": MAIL, retries: "0" } });
  await h.proxy("GET", "/echo/two", { headers: { "connection-id": "nobody" } });
  await logged(3);
  browser = await launchChromium();
  page = browser.page;
  await logIn(page, h.junction.url, TEST_SECRET_KEY);
}, STEP_MS);

afterAll(async () => {
  await browser?.close();
  await h?.close();
});

const rowCount = () => page.$$eval("#operations tbody tr", (rows) => rows.length);

describe("the Logs page", () => {
  test(
    "lists operations, filters by status, searches the messages, and opens one with its messages",
    async () => {
      await goTo(page, "#/logs", "logs");
      expect(await rowCount()).toBe(3);
      expect(await page.getAttribute('#nav a[data-nav="logs"]', "class")).toContain("active");
      await screenshot(page, "logs");

      await page.selectOption("#filter-status", "failed");
      await page.click('#logs-filter button[type="submit"]');
      await page.waitForFunction(() => document.querySelectorAll("#operations tbody tr").length === 2);
      await page.fill("#filter-q", "unknown_connection");
      await page.click('#logs-filter button[type="submit"]');
      await page.waitForFunction(() => document.querySelectorAll("#operations tbody tr").length === 1);
      expect(await page.textContent("#operations tbody")).toContain("nobody");

      await page.click("#operations tbody tr a");
      await page.waitForSelector("#operation-messages");
      expect(await page.textContent("#operation-messages")).toContain("unknown_connection");
      await screenshot(page, "logs-operation");
    },
    STEP_MS,
  );

  test(
    "the live tail shows a new operation without a reload; a connection's page links to its operations",
    async () => {
      await goTo(page, "#/logs?live=true", "logs");
      const before = await rowCount();
      await h.proxy("GET", "/echo/three");
      await page.waitForFunction((n) => document.querySelectorAll("#operations tbody tr").length === n + 1, before, {
        timeout: 20_000,
      });
      await goTo(page, `#/connections/${CALENDAR}/${CONNECTION}`, "connections");
      await page.click("#connection-operations");
      await page.waitForSelector('#app[data-view="logs"] #operations');
      const connections = await page.$$eval("#operations tbody tr td:nth-child(5)", (cells) =>
        cells.map((c) => c.textContent),
      );
      expect(connections.length).toBeGreaterThan(0);
      expect(new Set(connections)).toEqual(new Set([CONNECTION]));
    },
    STEP_MS,
  );

  test(
    "fits 390 px and reads in the dark",
    async () => {
      await goTo(page, "#/logs?again=1", "logs");
      await page.emulateMedia({ colorScheme: "dark" });
      await screenshot(page, "logs-dark");
      await page.setViewportSize({ width: 390, height: 844 });
      try {
        await screenshot(page, "logs-390-dark");
        await page.emulateMedia({ colorScheme: "light" });
        await screenshot(page, "logs-390");
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      } finally {
        await page.setViewportSize({ width: 1280, height: 860 });
        await page.emulateMedia({ colorScheme: "light" });
      }
    },
    STEP_MS,
  );
});
