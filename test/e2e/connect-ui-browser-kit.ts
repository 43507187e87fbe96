import type { FrameLocator, Page } from "playwright-core";

// The Connect UI as Nango's frontend SDK opens it (`openConnectUI`, frontend-sdk-entry.ts's `openUI`) on the
// page of frontend-sdk-kit.ts.

export type Events = { type: string; payload?: Record<string, unknown> }[];
export const events = (p: Page) => p.evaluate(() => (window as unknown as { events: Events }).events);

/** Opens the Connect UI from the app page; the frame is `#connect-ui`. */
export async function openUI(
  page: Page,
  options: { baseURL: string; apiURL: string; sessionToken?: string; theme?: "light" | "dark"; lang?: string },
): Promise<FrameLocator> {
  await page.waitForFunction(() => "openUI" in window);
  await page.evaluate((o) => (window as unknown as { openUI(o: unknown): void }).openUI(o), options);
  return page.frameLocator("#connect-ui");
}

/** Waits until the app heard an event of `type`; the events so far. */
export async function waitForEvent(page: Page, type: string): Promise<Events> {
  await page.waitForFunction((t) => (window as unknown as { events: Events }).events.some((e) => e.type === t), type);
  return events(page);
}
