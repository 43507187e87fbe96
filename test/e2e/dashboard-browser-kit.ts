import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { tempDir } from "../support/temp-dir.ts";

/** Debian's Chromium (`apt-get install -y chromium`); CHROMIUM_PATH points elsewhere. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
/** Where the browser test keeps a screenshot of each main page (shown in docs/dashboard.md). */
export const SCREENSHOTS_DIR = join(import.meta.dir, "..", "..", "docs", "screenshots");

const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  "--disable-quic",
  "--disable-dev-shm-usage",
];

export interface Browser {
  context: BrowserContext;
  page: Page;
  close(): Promise<void>;
}

/**
 * Chromium with a fresh profile. Never skipped: without Chromium the test fails and says how to
 * install it (scripts/ensure-tools.sh installs it for `npm test` where it may).
 */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `The dashboard browser test needs Chromium at ${CHROMIUM_PATH}: install it with 'apt-get install -y chromium' (npm test does it when it may), or set CHROMIUM_PATH.`,
    );
  }
  const profile = tempDir("junction-chromium-");
  const context = await chromium.launchPersistentContext(profile.path, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ARGS,
    viewport: { width: 1280, height: 860 },
    timeout: 60_000,
  });
  context.setDefaultTimeout(30_000);
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    context,
    page,
    async close() {
      await context.close();
      profile.remove();
    },
  };
}

/** Saves a full-page screenshot as docs/screenshots/{name}.png. */
/**
 * Takes a screenshot of the page every run (so a page that cannot render fails the test), and
 * writes it to docs/screenshots only with JUNCTION_UPDATE_SCREENSHOTS=1, so a test run leaves the
 * work tree clean.
 */
export async function screenshot(page: Page, name: string): Promise<void> {
  const png = await page.screenshot({ fullPage: true });
  if (png.byteLength < 1000) throw new Error(`screenshot of ${name} is suspiciously small`);
  if (process.env.JUNCTION_UPDATE_SCREENSHOTS !== "1") return;
  mkdirSync(SCREENSHOTS_DIR, { recursive: true });
  writeFileSync(join(SCREENSHOTS_DIR, `${name}.png`), png);
}

/**
 * Logs the page in to the dashboard of `junctionUrl` with `secretKey`: the overview opens it; then
 * goes to the integrations list, where the callers' steps start.
 */
export async function logIn(page: Page, junctionUrl: string, secretKey: string): Promise<void> {
  await page.goto(`${junctionUrl}/dashboard/login`);
  await page.fill("#secret_key", secretKey);
  await page.click("#login");
  await page.waitForSelector('#app[data-view="overview"]');
  await goTo(page, "#/integrations", "integrations");
}

/**
 * The words of the table cells under `selector` that the browser drew on more than one line: a word
 * broken mid-word (by `word-break: break-all` or `overflow-wrap: anywhere` in a squeezed column).
 */
export function brokenWords(page: Page, selector: string): Promise<string[]> {
  return page.$$eval(`${selector} th, ${selector} td`, (cells) => {
    const broken: string[] = [];
    for (const cell of cells) {
      const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const text = node.textContent ?? "";
        // Hyphens and slashes are where a line may break without breaking a word.
        for (const match of text.matchAll(/[^\s\-/]+/g)) {
          const range = document.createRange();
          range.setStart(node, match.index ?? 0);
          range.setEnd(node, (match.index ?? 0) + match[0].length);
          const lines = new Set(Array.from(range.getClientRects(), (r) => Math.round(r.top)));
          if (lines.size > 1) broken.push(match[0]);
        }
      }
    }
    return broken;
  });
}

/** The text of the cells of one column (by header label) of the table `selector`. */
export function columnTexts(page: Page, selector: string, label: string): Promise<string[]> {
  return page.$$eval(
    `${selector} tr`,
    (rows, wanted) => {
      const headers = Array.from(rows[0]?.querySelectorAll("th") ?? [], (th) => th.textContent?.trim().toLowerCase());
      const at = headers.indexOf(wanted.toLowerCase());
      return rows.slice(1).map((row) => row.querySelectorAll("td")[at]?.textContent?.trim() ?? "");
    },
    label,
  );
}

/** Goes to a hash route and waits for its view; the old view is marked first, so it cannot be mistaken for the new one. */
export async function goTo(page: Page, hash: string, view: string): Promise<void> {
  await page.evaluate(() => {
    (document.getElementById("app") as HTMLElement).dataset.view = "stale";
  });
  await page.evaluate((h) => {
    location.hash = h;
  }, hash);
  await page.waitForSelector(`#app[data-view="${view}"]`);
}
