import { afterAll, beforeAll } from "bun:test";
import type { Page } from "playwright-core";
import { startTestJunction, TEST_SECRET_KEY, type TestJunction } from "../support/embedded-junction.ts";
import { type Browser, launchChromium, logIn } from "./dashboard-browser-kit.ts";

/** How long one browser step may take on a shared machine. */
export const STEP_MS = 120_000;

export interface DashboardWorld {
  j: TestJunction;
  page: Page;
}

/**
 * An embedded Junction and Chromium logged in to its dashboard, for the file's tests (started once in
 * beforeAll, closed in afterAll). Call at the top level; read the world inside a test.
 */
export function useLoggedInDashboard(options?: Parameters<typeof startTestJunction>[0]): () => DashboardWorld {
  let world: DashboardWorld | undefined;
  let browser: Browser | undefined;
  let j: TestJunction | undefined;
  beforeAll(async () => {
    j = await startTestJunction(options);
    browser = await launchChromium();
    await logIn(browser.page, j.url, TEST_SECRET_KEY);
    world = { j, page: browser.page };
  }, STEP_MS);
  afterAll(async () => {
    await browser?.close();
    await j?.close();
  });
  return () => {
    if (!world) throw new Error("the dashboard world did not start (see beforeAll)");
    return world;
  };
}
