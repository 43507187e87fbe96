import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { type Browser, launchChromium } from "./dashboard-browser-kit.ts";
import { type OAuthWorld, useOAuthWorld } from "./oauth-e2e-kit.ts";

// The callback page posts its result only to the origin that started the
// authorization, never "*", and a failure (a replayed callback) names no connection. In Chromium, with
// an app page and an unrelated page on their own origins (127.0.0.1, other ports).

const STEP_MS = 120_000;
const world = useOAuthWorld();

/** A page that records every message it receives, with the sender's origin. */
const LISTENER = `<!doctype html><title>page</title><script>
window.received = [];
addEventListener("message", (e) => window.received.push({ origin: e.origin, data: e.data }));
</script>`;

function servePage(): { url: string; stop(): void } {
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: () => new Response(LISTENER, { headers: { "content-type": "text/html" } }),
  });
  return { url: `http://127.0.0.1:${server.port}/`, stop: () => server.stop(true) };
}

type Received = { origin: string; data: Record<string, unknown> }[];
const received = (p: Page) => p.evaluate(() => (window as unknown as { received: Received }).received);

let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

describe("the OAuth callback page's message", () => {
  test(
    "goes to the app that opened the authorization, in Junction's and Nango's shapes; a replay names no connection and reaches no other page",
    async () => {
      const w: OAuthWorld = await world({ fake: { interactive: true } });
      await w.integration();
      const token = await w.session();
      const app = servePage();
      const other = servePage();
      try {
        const appPage = await browser.context.newPage();
        await appPage.goto(app.url);
        const start = `${w.j.url}/oauth/connect/cal?connect_session_token=${encodeURIComponent(token)}`;
        const [popup] = await Promise.all([
          appPage.waitForEvent("popup"),
          appPage.evaluate((u) => window.open(u, "authorize", "popup"), start),
        ]);
        await popup.waitForSelector("#login_email");
        await popup.fill("#login_email", "alice@example.com");
        await popup.click("#allow");
        await popup.waitForSelector("#code");
        expect(await popup.textContent("#code")).toBe("connected");
        const callbackUrl = popup.url();
        const gatewayOrigin = new URL(callbackUrl).origin;
        await appPage.waitForFunction(() => (window as unknown as { received: unknown[] }).received.length === 1);
        const [ok] = await received(appPage);
        const [connectionId] = await w.connectionIds();
        expect(ok).toEqual({
          origin: gatewayOrigin,
          data: {
            type: "junction:auth",
            success: true,
            code: "connected",
            providerConfigKey: "cal",
            connectionId,
            eventType: "AUTHORIZATION_SUCEEDED",
            data: { connectionId, providerConfigKey: "cal" },
          },
        });

        // Another page replays the callback URL: the message is not delivered to it. Messages from one
        // window to another arrive in order, so once a marker posted after the page's own script has
        // arrived, the page's message would have too.
        const otherPage = await browser.context.newPage();
        await otherPage.goto(other.url);
        const [replay] = await Promise.all([
          otherPage.waitForEvent("popup"),
          otherPage.evaluate((u) => window.open(u, "replay", "popup"), callbackUrl),
        ]);
        await replay.waitForLoadState("load");
        await replay.evaluate(() => window.opener.postMessage("marker", "*"));
        await otherPage.waitForFunction(() => (window as unknown as { received: unknown[] }).received.length > 0);
        expect((await received(otherPage)).map((m) => m.data)).toEqual(["marker"] as never);
        expect(await replay.textContent("#code")).toBe("state_already_used");
        expect(await replay.content()).not.toContain(connectionId as string);

        // The app itself replaying it hears of the failure, and of no connection.
        await appPage.evaluate((u) => window.open(u, "replay-app", "popup"), callbackUrl);
        await appPage.waitForFunction(() => (window as unknown as { received: unknown[] }).received.length === 2);
        const [, failed] = await received(appPage);
        expect(failed?.data).toMatchObject({ success: false, code: "state_already_used", providerConfigKey: "cal" });
        expect(failed?.data).not.toHaveProperty("connectionId");
        expect(JSON.stringify(failed)).not.toContain(connectionId as string);
        expect(failed?.data.eventType).toBe("AUTHORIZATION_FAILED");
      } finally {
        app.stop();
        other.stop();
      }
    },
    STEP_MS,
  );
});
