import { join } from "node:path";
import type { Page } from "playwright-core";
import type { Browser } from "./dashboard-browser-kit.ts";

// Nango's frontend SDK (@nangohq/frontend) in Chromium, on a page of its own origin (another
// 127.0.0.1 port than Junction's), as a customer's web app loads it.

export type SdkOutcome =
  | { ok: { providerConfigKey: string; connectionId: string; isPending?: boolean } }
  | { err: { authError: boolean; type: string; message: string } };

export interface SdkApp {
  url: string;
  origin: string;
  stop(): void;
}

/** At /sibling: a page that posts a session token to the first frame of its parent (not that frame's parent). */
const SIBLING = `<!doctype html><script>window.sendToken = (t) => parent.frames[0].postMessage({ type: "session_token", sessionToken: t }, "*");</script>`;

/** Bundles the SDK with `bun build` and serves it on a page of its own origin. */
export async function serveSdkApp(): Promise<SdkApp> {
  const built = await Bun.build({ entrypoints: [join(import.meta.dir, "frontend-sdk-entry.ts")], target: "browser" });
  if (!built.success) throw new Error(`bun build: ${built.logs.join("\n")}`);
  const script = await (built.outputs[0] as Blob).text();
  const page = `<!doctype html><meta charset="utf-8"><title>app</title><script type="module" src="/sdk.js"></script><h1>Acme app</h1><p>Your settings page.</p>`;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (req) => {
      const path = new URL(req.url).pathname;
      if (path === "/sdk.js") return new Response(script, { headers: { "content-type": "text/javascript" } });
      return new Response(path === "/sibling" ? SIBLING : page, { headers: { "content-type": "text/html" } });
    },
  });
  const origin = `http://127.0.0.1:${server.port}`;
  return { url: `${origin}/`, origin, stop: () => server.stop(true) };
}

/** Opens the app page with the SDK loaded. */
export async function openApp(browser: Browser, app: SdkApp): Promise<Page> {
  const page = await browser.context.newPage();
  await page.goto(app.url);
  await page.waitForFunction(() => typeof (window as unknown as { sdkAuth?: unknown }).sdkAuth === "function");
  return page;
}

/** Calls `auth()` on the page; with `popup`, waits for the popup the SDK opens and returns it. */
export async function startAuth(
  page: Page,
  options: { host: string; connectSessionToken: string; websocketsPath?: string },
  integration: string,
  authOptions?: Record<string, unknown>,
  popup = true,
): Promise<Page | undefined> {
  const run = page.evaluate(
    ([o, i, a]) => (window as unknown as { sdkAuth: (...args: unknown[]) => void }).sdkAuth(o, i, a),
    [options, integration, authOptions] as const,
  );
  if (!popup) {
    await run;
    return undefined;
  }
  const [opened] = await Promise.all([page.waitForEvent("popup"), run]);
  return opened;
}

/** Waits for `auth()` to resolve or reject. */
export async function sdkOutcome(page: Page): Promise<SdkOutcome> {
  const handle = await page.waitForFunction(
    () => (window as unknown as { sdkOutcome?: unknown }).sdkOutcome,
    undefined,
    { timeout: 30_000 },
  );
  return (await handle.jsonValue()) as SdkOutcome;
}

/** At the fake provider's consent page in the popup: signs in as `email`, then allows or declines. */
export async function consent(popup: Page, decision: "allow" | "deny", email = "alice@example.com"): Promise<void> {
  await popup.waitForSelector("#login_email");
  await popup.fill("#login_email", email);
  await popup.click(decision === "allow" ? "#allow" : "#deny");
}
