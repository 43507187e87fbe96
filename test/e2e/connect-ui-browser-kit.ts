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

/** How long a click is given to start the sign-in before it counts as lost (the form never went busy). */
const LOST_CLICK_MS = 10_000;

/**
 * Clicks `selector` in the UI's frame and returns the sign-in window the click opens. A click the frame
 * never received (the form did not go busy: no submit ran) is clicked once more, as a person would; a
 * submit that ran and opened no window fails. When none opens, the error says what the frame shows
 * instead (a heading, an error, a status), what the app heard and which pages are open, so a failure
 * names the step that did not happen rather than only the wait that ran out.
 */
export async function clickForPopup(page: Page, frame: FrameLocator, selector: string): Promise<Page> {
  const popup = page.waitForEvent("popup");
  popup.catch(() => undefined);
  try {
    await frame.locator(selector).click();
    const first = await Promise.race([popup, page.waitForTimeout(LOST_CLICK_MS).then(() => undefined)]);
    if (first) return first;
    const busy = await frame.locator("#connect-form").getAttribute("aria-busy");
    if (busy === "true") return await popup;
    await frame.locator(selector).click();
    return await popup;
  } catch (err) {
    const shown = await frame
      .locator("#connect :is(h1, p, button)")
      .allTextContents()
      .then((texts) => texts.filter((t) => t.trim() !== "").join(" | "))
      .catch((e: Error) => `(unreadable: ${e.message})`);
    const heard = await events(page).catch(() => []);
    const pages = page
      .context()
      .pages()
      .map((p) => p.url());
    throw new Error(
      `no sign-in window after clicking ${selector}: ${(err as Error).message}\nthe frame shows: ${shown}\nthe app heard: ${JSON.stringify(heard)}\nopen pages: ${pages.join(", ")}`,
    );
  }
}
