import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { TEST_SECRET_KEY } from "../support/embedded-junction.ts";
import { waitFor } from "../support/wait-for.ts";
import { type Browser, goTo, launchChromium, logIn, screenshot } from "./dashboard-browser-kit.ts";
import { CALENDAR, type ProxyHarness, startProxyHarness } from "./proxy-kit.ts";

// The dashboard's Overview page (Debian's Chromium): the page that opens the dashboard, its empty state,
// its charts drawn from traffic driven through an embedded Junction, the period switch, and the
// connections in trouble linking to their pages; screenshots at 1280 and 390 px, light and dark.

const STEP_MS = 120_000;
let h: ProxyHarness;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  // Sampled every second (the shortest the setting allows), so the charts follow within seconds.
  h = await startProxyHarness({ env: { JUNCTION_OVERVIEW_SAMPLE_MS: "1000" } });
  browser = await launchChromium();
  page = browser.page;
  await logIn(page, h.junction.url, TEST_SECRET_KEY);
}, STEP_MS);

afterAll(async () => {
  await browser?.close();
  await h?.close();
});

const legendTotal = (chart: string, series: string) =>
  page.getAttribute(`#chart-${chart} .legend li[data-series="${series}"]`, "data-total").then(Number);

/** Screenshots of the current page at 1280 and 390 px wide, light and dark. */
async function screenshots(name: string): Promise<void> {
  for (const scheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 860 });
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow, `${name} at ${width} px scrolls sideways`).toBeLessThanOrEqual(0);
      const suffix = `${width === 390 ? "-390" : ""}${scheme === "dark" ? "-dark" : ""}`;
      await screenshot(page, `${name}${suffix}`);
    }
  }
  await page.emulateMedia({ colorScheme: "light" });
  await page.setViewportSize({ width: 1280, height: 860 });
}

describe("the Overview page", () => {
  test(
    "opens the dashboard, in the nav; says nothing has happened yet before any traffic",
    async () => {
      await goTo(page, "#/overview", "overview");
      expect(await page.getAttribute('#nav a[data-nav="overview"]', "class")).toContain("active");
      await page.waitForSelector("#overview-empty");
      expect(await page.textContent("#overview-empty h2")).toBe("Nothing has happened in the last hour yet");
      expect(await page.$("#chart-proxy")).toBeNull();
      expect(await page.textContent("#trouble")).toContain("No connection in trouble.");
      await screenshots("overview-empty");
    },
    STEP_MS,
  );

  test(
    "charts the proxy calls, their latency and a refresh failure; the trouble list links to the connection",
    async () => {
      for (let i = 0; i < 5; i++) expect((await h.proxy("GET", "/echo/ok")).status).toBe(200);
      expect((await h.proxy("GET", "/no/such/resource")).status).toBe(404);
      const broken = await h.junction.api("POST", "/connections", {
        provider_config_key: CALENDAR,
        connection_id: "broken",
        credentials: { type: "OAUTH2", access_token: "old", refresh_token: "refused", expires_at: Date.now() - 60_000 },
      });
      expect(broken.status).toBeLessThan(300);
      expect((await h.proxy("GET", "/echo/ok", { headers: { "connection-id": "broken" } })).status).toBeGreaterThan(
        399,
      );
      await waitFor("the sampler to count the calls", async () => {
        const t = (await h.junction.api("GET", "/overview")).body.data.totals;
        return t.proxy_calls["2xx"] === 5 && t.refresh_failures === 1;
      });

      await goTo(page, "#/overview?period=hour", "overview");
      expect(await page.getAttribute("#overview", "data-empty")).toBe("false");
      expect(await legendTotal("proxy", "2xx")).toBe(5);
      expect(await legendTotal("proxy", "4xx")).toBe(1);
      expect(await legendTotal("refresh", "failed")).toBe(1);
      // Drawn: bars of 2xx and 4xx, a latency dot, a refresh failure bar.
      expect(await page.locator('svg[data-chart="proxy"] rect[data-series="2xx"]').count()).toBeGreaterThan(0);
      expect(await page.locator('svg[data-chart="proxy"] rect[data-series="4xx"]').count()).toBeGreaterThan(0);
      expect(await page.locator('svg[data-chart="latency"] [data-series="p95"]').count()).toBeGreaterThan(0);
      expect(await page.locator('svg[data-chart="refresh"] rect').count()).toBeGreaterThan(0);
      expect(await page.textContent('#chart-latency .legend li[data-series="p50"] strong')).toMatch(/^\d+ ms$/);
      // A bar is as tall as its share of the chart's largest point.
      const bar = await page.locator('svg[data-chart="proxy"] rect[data-series="2xx"]').first().boundingBox();
      expect(bar?.height ?? 0).toBeGreaterThan(10);

      const row = page.locator('#trouble-connections tr[data-connection="cal/broken"]');
      expect(await row.locator("td").nth(2).textContent()).toBe("1");
      expect(await page.textContent('#trouble-integrations tr[data-integration="cal"]')).toContain("1");
      await screenshots("overview");

      await row.locator("a", { hasText: "broken" }).click();
      await page.waitForSelector('#app[data-view="connections"]');
      expect(page.url()).toContain("#/connections/cal/broken");
    },
    STEP_MS,
  );

  test(
    "the period switch shows the same traffic over the day and the week",
    async () => {
      await goTo(page, "#/overview", "overview");
      const periods: [string, string][] = [
        ["Last day", "day"],
        ["Last week", "week"],
      ];
      for (const [label, period] of periods) {
        await page.evaluate(() => {
          (document.getElementById("app") as HTMLElement).dataset.view = "stale";
        });
        await page.click(`#period a:text("${label}")`);
        await page.waitForSelector('#app[data-view="overview"]');
        expect(page.url()).toContain(`period=${period}`);
        expect(await page.textContent('#period a[aria-current="page"]')).toBe(label);
        expect(await legendTotal("proxy", "2xx")).toBe(5);
      }
    },
    STEP_MS,
  );
});
