import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { startTestJunction, TEST_SECRET_KEY, type TestJunction } from "../support/embedded-junction.ts";
import { type Browser, launchChromium, logIn } from "./dashboard-browser-kit.ts";

// The dashboard's "new integration" picks the provider from the catalogue with search,
// and says each provider's auth mode and what its connect page asks (Debian's Chromium).

const STEP_MS = 120_000;
let j: TestJunction;
let browser: Browser;
let page: Page;

const options = () => page.$$eval("#provider option", (os) => os.map((o) => (o as HTMLOptionElement).value));

beforeAll(async () => {
  j = await startTestJunction();
  browser = await launchChromium();
  page = browser.page;
  await logIn(page, j.url, TEST_SECRET_KEY);
}, STEP_MS);

afterAll(async () => {
  await browser?.close();
  await j?.close();
});

describe("new integration: the provider picked from the catalogue", () => {
  test(
    "search narrows the list; the summary says the auth mode and what the connect page asks",
    async () => {
      await page.click("#new-integration");
      await page.waitForSelector("#new-integration-form");
      const all = await options();
      const { data: listed } = (await j.api("GET", "/providers")).body as { data: { name: string }[] };
      expect(all.sort()).toEqual(listed.map((p) => p.name).sort());

      await page.fill("#provider-search", "shop");
      expect(await options()).toEqual(["shopify"]);
      expect(await page.inputValue("#provider")).toBe("shopify");
      expect(await page.inputValue("#unique_key")).toBe("shopify");
      const shop = await page.textContent("#provider-summary");
      expect(shop).toContain("OAUTH2");
      expect(shop).toContain("Shop name");
      expect(await page.isVisible("#client_id")).toBe(true);

      // Words match the name, display name or auth mode: an API-key provider is found by its mode.
      await page.fill("#provider-search", "stripe api_key");
      expect(await options()).toEqual(["stripe-api-key"]);
      expect(await page.textContent("#provider-summary")).toContain("API_KEY");
      expect(await page.isVisible("#client_id")).toBe(false);

      await page.fill("#provider-search", "no such provider");
      expect(await options()).toEqual([]);
      expect(await page.textContent("#provider-summary")).toContain("No provider matches");
      expect(await page.isDisabled("#create")).toBe(true);
    },
    STEP_MS,
  );

  test(
    "an API-key provider picked by search is created without an OAuth client",
    async () => {
      await page.fill("#provider-search", "stripe");
      await page.fill("#unique_key", "payments");
      await page.click("#create");
      await page.waitForSelector('section[data-integration="payments"]');
      const created = await j.api("GET", "/integrations/payments");
      expect(created.body.data).toMatchObject({ unique_key: "payments", provider: "stripe-api-key" });
    },
    STEP_MS,
  );
});
