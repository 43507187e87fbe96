import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { startTestJunction, TEST_SECRET_KEY, type TestJunction } from "../support/embedded-junction.ts";
import { type Browser, goTo, launchChromium, logIn, screenshot } from "./dashboard-browser-kit.ts";

// The dashboard's Settings page (Debian's Chromium): the environment and callback URL, webhook
// endpoints, the signing secret rotated with a grace period and shown once, and what was set at start.

const STEP_MS = 120_000;
const ENDPOINT = "http://127.0.0.1:9/webhooks";
let j: TestJunction;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  j = await startTestJunction({ env: { JUNCTION_METRICS_TOKEN: "metrics-token-for-the-settings-page" } });
  browser = await launchChromium();
  page = browser.page;
  await logIn(page, j.url, TEST_SECRET_KEY);
}, STEP_MS);

afterAll(async () => {
  await browser?.close();
  await j?.close();
});

const settings = async () => (await j.api("GET", "/webhook-settings")).body.data;

describe("the Settings page", () => {
  test(
    "shows the environment, the callback URL and what was set at start",
    async () => {
      await goTo(page, "#/settings", "settings");
      expect(await page.textContent("#environment-id")).toMatch(/^env_[a-z0-9]+$/);
      expect(await page.textContent("#callback-url")).toBe(`${j.baseUrl}/oauth/callback`);
      const observed = (await page.textContent("#observability")) ?? "";
      expect(observed).toMatch(/Metrics\s*on/);
      expect(observed).toMatch(/Tracing\s*off/);
      expect(await page.textContent("#endpoints")).toContain("None");
    },
    STEP_MS,
  );

  test(
    "adds an endpoint (the first shows the signing secret once), refuses a bad one, removes one",
    async () => {
      await page.fill("#new-endpoint", "not a url");
      await page.click("#add-endpoint");
      await page.waitForSelector("#endpoints-error");
      expect((await settings()).endpoints).toEqual([]);

      await page.fill("#new-endpoint", ENDPOINT);
      await page.click("#add-endpoint");
      await page.waitForSelector(`#endpoints-table tr[data-endpoint="${ENDPOINT}"]`);
      const secret = (await page.textContent("#signing-secret-value")) ?? "";
      const saved = await settings();
      expect(saved.endpoints).toMatchObject([{ url: ENDPOINT, enabled: true }]);
      expect(secret.startsWith(saved.signing_secret_prefix)).toBe(true);
      await screenshot(page, "settings");

      // Shown once: the page drawn again has the prefix only.
      await goTo(page, "#/settings?again=1", "settings");
      expect(await page.content()).not.toContain(secret);
      await page.click(`#endpoints-table tr[data-endpoint="${ENDPOINT}"] button[data-action="remove"]`);
      await page.waitForSelector("#endpoints-table", { state: "detached" });
      expect((await settings()).endpoints).toEqual([]);
    },
    STEP_MS,
  );

  test(
    "rotates the signing secret with a grace period; the new one is shown once",
    async () => {
      const before = await settings();
      await page.selectOption("#grace-hours", "1");
      const asked = Date.now();
      await page.click("#rotate-secret");
      await page.waitForSelector("#new-secret");
      const secret = (await page.textContent("#signing-secret-value")) ?? "";
      const after = await settings();
      expect(after.signing_secret_prefix).not.toBe(before.signing_secret_prefix);
      expect(secret.startsWith(after.signing_secret_prefix)).toBe(true);
      const validUntil = Date.parse(after.previous_secret_valid_until);
      expect(validUntil).toBeGreaterThanOrEqual(asked + 3_600_000 - 60_000);
      expect(validUntil).toBeLessThanOrEqual(Date.now() + 3_600_000 + 60_000);
      await page.setViewportSize({ width: 390, height: 844 });
      try {
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
        await screenshot(page, "settings-390");
      } finally {
        await page.setViewportSize({ width: 1280, height: 860 });
      }
    },
    STEP_MS,
  );
});
