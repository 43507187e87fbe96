import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestJunction, TEST_SECRET_KEY, type TestJunction } from "../support/embedded-junction.ts";
import { waitFor } from "../support/wait-for.ts";
import { type Browser, launchChromium, logIn } from "./dashboard-browser-kit.ts";

const STEP_MS = 120_000;
let j: TestJunction;
let browser: Browser;

beforeAll(async () => {
  j = await startTestJunction();
  const created = await j.api("POST", "/integrations", { unique_key: "cal", provider: "google-calendar" });
  if (created.status >= 300) throw new Error(`integration: ${created.text}`);
  browser = await launchChromium();
  await logIn(browser.page, j.url, TEST_SECRET_KEY);
}, STEP_MS);

afterAll(async () => {
  await browser?.close();
  await j?.close();
});

test(
  "the integration page shows the records retention and saves it",
  async () => {
    const page = browser.page;
    await j.api("PUT", "/integrations/cal/records-retention", { payload_days: 5, records_days: 9 });
    await page.evaluate(() => {
      location.hash = "#/integrations/cal";
    });
    await page.waitForSelector("#records-retention-form");
    await waitFor("the retention loaded", async () => (await page.inputValue("#retention-payload-days")) === "5");
    expect(await page.inputValue("#retention-records-days")).toBe("9");
    await page.fill("#retention-payload-days", "30");
    await page.fill("#retention-records-days", "0");
    await page.click("#save-records-retention");
    await page.waitForSelector("#records-retention-result .ok");
    expect((await j.api("GET", "/integrations/cal/records-retention")).body.data).toEqual({
      payload_days: 30,
      records_days: 0,
    });
  },
  STEP_MS,
);
