import { join } from "node:path";
import type { FrameLocator, Page } from "playwright-core";

/** The page of connect-ui-app.ts (Nango's frontend SDK), bundled once, served on its own 127.0.0.1 origin. */
export interface AppServer {
  url: string;
  origin: string;
  stop(): void;
}

let bundle: Promise<string> | undefined;

async function appScript(): Promise<string> {
  bundle ??= Bun.build({
    entrypoints: [join(import.meta.dir, "connect-ui-app.ts")],
    target: "browser",
    format: "esm",
  }).then(async (r) => {
    if (!r.success || !r.outputs[0]) throw new Error(`app bundle: ${r.logs.map((l) => l.message).join("; ")}`);
    return r.outputs[0].text();
  });
  return bundle;
}

/**
 * Serves the app page at `/` and, at `/sibling`, a page that posts `message` to the first frame of its
 * parent (a frame of another origin than the Connect UI's parent).
 */
export async function serveApp(): Promise<AppServer> {
  const script = await appScript();
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const path = new URL(req.url).pathname;
      if (path === "/app.js") return new Response(script, { headers: { "content-type": "text/javascript" } });
      if (path === "/sibling") {
        return new Response(
          `<!doctype html><script>window.sendToken = (t) => parent.frames[0].postMessage({ type: "session_token", sessionToken: t }, "*");</script>`,
          { headers: { "content-type": "text/html" } },
        );
      }
      return new Response(
        `<!doctype html><html><head><title>Acme app</title><script type="module" src="/app.js"></script></head><body><h1>Acme app</h1><p>Your settings page.</p></body></html>`,
        { headers: { "content-type": "text/html" } },
      );
    },
  });
  const origin = `http://127.0.0.1:${server.port}`;
  return { url: `${origin}/`, origin, stop: () => server.stop(true) };
}

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
