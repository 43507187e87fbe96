import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { startTestJunction, TEST_SECRET_KEY, type TestJunction } from "../support/embedded-junction.ts";
import { type Browser, columnTexts, goTo, launchChromium, logIn, screenshot } from "./dashboard-browser-kit.ts";

// The first-hour traps of the dashboard (Debian's Chromium): an unknown route, test credentials offered
// where none exist, a test connection that waited forever after Junction's error, ids broken mid-word,
// a script's page without its file, Run or Remove, and the nav at a phone's width.

const STEP_MS = 120_000;
let j: TestJunction;
let browser: Browser;
let page: Page;

const go = (hash: string, view: string) => goTo(page, hash, view);

/**
 * Words of the text under `selector` drawn on more than one line although they fit its width: a word
 * broken mid-word by `word-break: break-all` where it could have moved whole to the next line.
 */
const brokenFittingWords = (selector: string) =>
  page.$$eval(selector, (els) => {
    const broken: string[] = [];
    for (const el of els) {
      const width = el.getBoundingClientRect().width;
      const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        for (const match of (node.textContent ?? "").matchAll(/[^\s\-/]+/g)) {
          const range = document.createRange();
          range.setStart(node, match.index ?? 0);
          range.setEnd(node, (match.index ?? 0) + match[0].length);
          const rects = Array.from(range.getClientRects());
          const lines = new Set(rects.map((r) => Math.round(r.top)));
          const drawn = rects.reduce((sum, r) => sum + r.width, 0);
          if (lines.size > 1 && drawn < width) broken.push(match[0]);
        }
      }
    }
    return broken;
  });

beforeAll(async () => {
  j = await startTestJunction();
  browser = await launchChromium();
  page = browser.page;
  await logIn(page, j.url, TEST_SECRET_KEY);
  expect((await j.api("POST", "/integrations", { unique_key: "nocreds", provider: "google-mail" })).status).toBe(200);
}, STEP_MS);

afterAll(async () => {
  await browser?.close();
  await j?.close();
});

describe("the dashboard's first-hour traps", () => {
  test(
    "an unknown route says it is not found instead of showing Integrations",
    async () => {
      await go("#/no-such-page", "not-found");
      expect(await page.textContent("#not-found")).toContain("Page not found");
      expect(await page.textContent("#not-found")).toContain("/no-such-page");
      expect(await page.$$eval("#nav a.active", (as) => as.length)).toBe(0);
      expect(new URL(page.url()).hash).toBe("#/no-such-page");
    },
    STEP_MS,
  );

  test(
    "test credentials are not offered where none exist; a test connection shows Junction's refusal and can be retried",
    async () => {
      await go("#/integrations/new", "integrations");
      expect(await page.textContent("#oauth-client")).not.toContain("to use Junction's test credentials");
      await go("#/integrations/nocreds", "integrations");
      expect(await page.$("#test-mode")).toBeNull();
      expect(await page.textContent("#test-mode-card")).toContain("configured no test credentials");
      for (let attempt = 0; attempt < 2; attempt++) {
        await page.click("#test-connection");
        await page.waitForSelector('#authorize-result[data-code="integration_missing_credentials"]');
        expect(await page.isEnabled("#test-connection")).toBe(true);
      }
      expect(await page.textContent("#authorize-result")).toContain("press the button again");
    },
    STEP_MS,
  );

  test(
    "a script's page shows its file, runs it and removes it",
    async () => {
      const source = `export default createSync({ frequency: "every day", exec: async (nango) => { await nango.log("ran"); } });`;
      for (const body of [
        { provider_config_key: "nocreds", name: "inline", source },
        { provider_config_key: "nocreds", name: "filed", filename: "syncs/filed.ts", source },
      ]) {
        expect((await j.api("POST", "/scripts", body)).status).toBe(201);
      }
      await go("#/scripts/nocreds/filed", "scripts");
      expect(await columnTexts(page, "#versions-table", "File")).toEqual(["syncs/filed.ts"]);
      await go("#/scripts/nocreds/inline", "scripts");
      // Deployed without a file name: the name Junction compiled it under.
      expect(await columnTexts(page, "#versions-table", "File")).toEqual(["inline.ts"]);
      await page.click("#run-script");
      await page.waitForSelector("#run-started");
      expect(await page.textContent("#run-started")).toContain("No connection to run it for");
      await page.click("#remove-script");
      expect(await page.textContent("#script-action-result")).toContain("to confirm");
      expect((await j.api("GET", "/scripts/nocreds/inline")).status).toBe(200);
      await page.fill("#remove-script-typed", "inline");
      await page.click("#remove-script");
      await page.waitForURL(/#\/scripts\?removed=inline$/);
      expect((await j.api("GET", "/scripts/nocreds/inline")).status).toBe(404);
    },
    STEP_MS,
  );

  test(
    "at 390 px the nav fits, nothing overflows sideways, and words are not broken where they fit",
    async () => {
      await page.setViewportSize({ width: 390, height: 844 });
      try {
        for (const [hash, view, shot] of [
          ["#/integrations", "integrations", "integrations-390"],
          ["#/integrations/nocreds", "integrations", "integration-settings-390"],
          ["#/scripts/nocreds/filed", "scripts", "script-390"],
          ["#/integrations/new", "integrations", "new-integration-390"],
        ] as const) {
          await go(hash, view);
          const links = await page.$$eval("#nav a", (as) => as.map((a) => a.getBoundingClientRect().right));
          expect(links.filter((right) => right > 390)).toEqual([]);
          const wide = await page.evaluate(() =>
            Array.from(document.querySelectorAll("body *"))
              .filter((e) => e.getBoundingClientRect().right > 391 && !e.closest("table, pre, .card"))
              .map((e) => `${e.tagName}#${e.id}.${e.className}`),
          );
          expect(wide).toEqual([]);
          expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
          expect(await brokenFittingWords("dl.fields dd, .copy-field code, #test-mode-card p")).toEqual([]);
          await screenshot(page, shot);
        }
      } finally {
        await page.setViewportSize({ width: 1280, height: 860 });
      }
    },
    STEP_MS,
  );

  test(
    "the provider picker keeps its search, list and summary in one column as wide as the form's fields",
    async () => {
      await go("#/integrations/new?at=1280", "integrations");
      const boxes = await page.$$eval(["#provider-search", "#provider", "#provider-summary"].join(","), (els) =>
        els.map((e) => {
          const r = e.getBoundingClientRect();
          return { left: Math.round(r.left), width: Math.round(r.width) };
        }),
      );
      const [search, list] = boxes;
      expect(boxes.every((b) => b.left === search?.left)).toBe(true);
      expect(list?.width).toBe(search?.width);
      await screenshot(page, "new-integration");
    },
    STEP_MS,
  );
});
