import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { startTestJunction, TEST_SECRET_KEY, type TestJunction } from "../support/embedded-junction.ts";
import { waitFor } from "../support/wait-for.ts";
import { KINDS, seedChannelKinds } from "./channel-kinds-kit.ts";
import { type Browser, launchChromium, logIn, screenshot } from "./dashboard-browser-kit.ts";

// In Debian's Chromium: an integration's provider settings and managed channels
// switch, the three channel kinds on the Channels page, and each provider's forward messages in the
// delivery log. One step per test, in order (they share the browser and the data).

const STEP_MS = 120_000;

let j: TestJunction;
let browser: Browser;
let page: Page;

/** Sets the hash and waits for the view it renders (the old view is marked stale first). */
async function go(hash: string, view: string): Promise<void> {
  await page.evaluate(() => {
    (document.getElementById("app") as HTMLElement).dataset.view = "stale";
  });
  await page.evaluate((h) => {
    location.hash = h;
  }, hash);
  await page.waitForSelector(`#app[data-view="${view}"]`);
}

beforeAll(async () => {
  j = await startTestJunction();
  await seedChannelKinds(j);
  browser = await launchChromium();
  page = browser.page;
  await logIn(page, j.url, TEST_SECRET_KEY);
}, STEP_MS);

afterAll(async () => {
  await browser?.close();
  await j?.close();
});

describe("integration settings and channel kinds in a real browser", () => {
  test(
    "Gmail's page shows each setting with its label, description, default and docs; edits are saved",
    async () => {
      await go("#/integrations/kinds-mail", "integrations");
      await page.waitForSelector("#provider-settings-form");
      const audience = page.locator('[data-setting="pubsub_audience"]');
      expect(await audience.locator("label").textContent()).toContain("Pub/Sub push audience");
      expect(await audience.textContent()).toContain("OIDC token");
      expect(await audience.locator("a").getAttribute("href")).toStartWith("https://cloud.google.com/");
      const jwks = page.locator('[data-setting="pubsub_jwks_url"]');
      expect(await jwks.locator(".setting-default").textContent()).toBe(
        "Default: https://www.googleapis.com/oauth2/v3/certs.",
      );
      expect(await page.locator('[data-setting="pubsub_topic"] label').textContent()).toContain("Pub/Sub topic");
      expect(await page.textContent("#managed-channels-hint")).toContain("mailbox watch");
      await page.fill("#setting-pubsub_topic", "projects/demo/topics/mail");
      await page.fill("#setting-pubsub_audience", "https://junction.example/push");
      await page.check("#managed-channels");
      await page.click("#save-provider-settings");
      await page.waitForSelector("#provider-settings-result .ok");
      const saved = (await j.api("GET", "/integrations/kinds-mail")).body.data;
      expect(saved).toMatchObject({
        provider_settings: {
          pubsub_topic: "projects/demo/topics/mail",
          pubsub_audience: "https://junction.example/push",
        },
        managed_channels: true,
      });
      await screenshot(page, "integration-provider-settings");
      // Reloaded, the page shows what was saved.
      await go("#/integrations/kinds-mail?t=1", "integrations");
      await page.waitForSelector("#provider-settings-form");
      expect(await page.inputValue("#setting-pubsub_topic")).toBe("projects/demo/topics/mail");
      expect(await page.isChecked("#managed-channels")).toBe(true);
    },
    STEP_MS,
  );

  test(
    "Outlook's page asks for the tenant; a value refused by the API shows its code and field",
    async () => {
      await go("#/integrations/kinds-outlook", "integrations");
      await page.waitForSelector("#setting-tenant");
      expect(await page.getAttribute("#setting-tenant", "placeholder")).toBe("common");
      expect(await page.textContent('[data-setting="tenant"] .setting-default')).toBe("Default: common.");
      await page.fill("#setting-tenant", "not/one/segment");
      await page.click("#save-provider-settings");
      const error = page.locator("#provider-settings-error");
      await error.waitFor();
      expect(await error.getAttribute("data-code")).toBe("invalid_request");
      expect(await error.textContent()).toContain("provider_settings.tenant");
      await page.fill("#setting-tenant", "contoso.onmicrosoft.com");
      await page.click("#save-provider-settings");
      await page.waitForSelector("#provider-settings-result .ok");
      expect((await j.api("GET", "/integrations/kinds-outlook")).body.data.provider_settings).toEqual({
        tenant: "contoso.onmicrosoft.com",
      });
      // Strict channels: off with managed channels off; turned on, saved.
      expect(await page.isChecked("#strict-channels")).toBe(false);
      await page.check("#strict-channels");
      await page.click("#save-provider-settings");
      await page.waitForSelector("#provider-settings-result .ok");
      expect((await j.api("GET", "/integrations/kinds-outlook")).body.data.strict_channels).toBe(true);
    },
    STEP_MS,
  );

  test(
    "the Channels page names each channel's kind",
    async () => {
      await go("#/channels", "channels");
      for (const [key, k] of Object.entries(KINDS)) {
        const row = page.locator(`#channels-active tr[data-kind="${k.kind}"]`, { hasText: `${key}-connection` });
        expect(await row.locator(".channel-kind").textContent()).toBe(k.kind);
      }
      await screenshot(page, "channels-kinds");
    },
    STEP_MS,
  );

  test(
    "the delivery log says what each forward message is, filters every type, and shows a payload",
    async () => {
      await go("#/deliveries?type=forward", "deliveries");
      await page.waitForSelector("#deliveries");
      const options = await page.locator("#filter-type option").allTextContents();
      expect(options).toEqual(["Any type", "forward", "auth", "sync", "channel", "endpoint_disabled"]);
      const summaries = await page.locator("#deliveries .message-summary").allTextContents();
      for (const k of Object.values(KINDS)) expect(summaries).toContain(`${k.kind} notification`);
      const mail = await waitFor("the Gmail forward message", async () => {
        const res = await j.api("GET", "/webhook-messages?provider_config_key=kinds-mail&type=forward");
        return res.body.data[0] ?? null;
      });
      await go(`#/deliveries/${mail.id}`, "deliveries");
      await page.waitForSelector("#payload-note");
      expect(await page.textContent("#message-summary")).toBe("mailbox watch notification");
      const body = JSON.parse((await page.textContent("#message-body")) ?? "{}");
      expect(body.payload).toMatchObject({ emailAddress: "nobody@example.com", messageId: "kinds-msg-1" });
      // The payload is shown once: in the body, as signed and sent.
      const text = (await page.textContent("#message")) ?? "";
      expect(text.split("kinds-msg-1").length - 1).toBe(1);
    },
    STEP_MS,
  );
  test(
    "the new-integration form asks for the chosen provider's settings and the managed channels switch",
    async () => {
      await go("#/integrations/new", "integrations");
      await page.waitForSelector("#new-integration-form");
      await page.selectOption("#provider", "microsoft-outlook-calendar");
      await page.waitForSelector("#setting-tenant");
      expect(await page.isDisabled("#new-managed-channels")).toBe(false);
      await page.fill("#unique_key", "outlook-form");
      await page.fill("#setting-tenant", "organizations");
      await page.check("#new-managed-channels");
      await page.click("#create");
      await page.waitForSelector('section[data-integration="outlook-form"]');
      expect((await j.api("GET", "/integrations/outlook-form")).body.data).toMatchObject({
        provider_settings: { tenant: "organizations" },
        managed_channels: true,
      });
    },
    STEP_MS,
  );
});
