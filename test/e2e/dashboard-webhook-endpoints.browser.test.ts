import { afterAll, describe, expect, test } from "bun:test";
import { goTo } from "./dashboard-browser-kit.ts";
import { STEP_MS, useLoggedInDashboard } from "./dashboard-session-kit.ts";
import { screenshotsLightAndDark } from "./dashboard-themes.ts";
import { startCustomerReceiver } from "./notifications-kit.ts";

// The Settings page's webhook endpoints (Debian's Chromium): send a test message and see the
// endpoint's answer, disable and enable an endpoint.

const world = useLoggedInDashboard();
const rx = startCustomerReceiver();
afterAll(() => rx.stop());

const row = `#endpoints-table tr[data-endpoint="${rx.url}"]`;
const answer = `#endpoints-table tr[data-test-of="${rx.url}"]`;
const endpoint = async () => (await world().j.api("GET", "/webhook-settings")).body.data.endpoints[0];

describe("webhook endpoints on the Settings page", () => {
  test(
    "sends a test message and shows the endpoint's status, latency and body",
    async () => {
      const { page } = world();
      await goTo(page, "#/settings", "settings");
      await page.fill("#new-endpoint", rx.url);
      await page.click("#add-endpoint");
      await page.waitForSelector(row);

      rx.answer({ status: 200, body: '{"received":true}' });
      await page.click(`${row} button[data-action="test"]`);
      await page.waitForSelector(`${answer} [data-ok="true"]`);
      const shown = (await page.textContent(answer)) ?? "";
      expect(shown).toMatch(/HTTP 200 in \d+ ms/);
      expect(shown).toContain('{"received":true}');
      const [got] = await rx.waitFor(1);
      expect(JSON.parse(got?.body ?? "{}")).toMatchObject({ type: "test", endpoint_id: (await endpoint()).id });

      rx.answer({ status: 503, body: "maintenance until noon" });
      await page.click(`${row} button[data-action="test"]`);
      await page.waitForSelector(`${answer} [data-ok="false"]`);
      expect(await page.textContent(answer)).toContain("HTTP 503");
      expect(await page.textContent(answer)).toContain("maintenance until noon");
    },
    STEP_MS,
  );

  test(
    "disables and enables an endpoint; the page says what happens to messages meanwhile",
    async () => {
      const { page } = world();
      await page.click(`${row} button[data-action="disable"]`);
      await page.waitForSelector(`${row} button[data-action="enable"]`);
      expect(await endpoint()).toMatchObject({ enabled: false, disabled_reason: "disabled by the operator" });
      expect(await page.textContent(`${row} .endpoint-state`)).toContain("disabled by the operator");
      expect(await page.textContent("#disabled-rule")).toContain("not held");
      await page.click(`${row} button[data-action="test"]`);
      await page.waitForSelector(`${answer} [data-ok]`);
      await screenshotsLightAndDark(page, "settings-endpoints");

      await page.click(`${row} button[data-action="enable"]`);
      await page.waitForSelector(`${row} button[data-action="disable"]`);
      expect(await endpoint()).toMatchObject({ enabled: true, disabled_reason: null });
      expect(await page.$("#disabled-rule")).toBeNull();
    },
    STEP_MS,
  );
});
