import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { clickForPopup, events, openUI, waitForEvent } from "./connect-ui-browser-kit.ts";
import { type Browser, launchChromium, screenshot } from "./dashboard-browser-kit.ts";
import { consent, type SdkApp, serveSdkApp } from "./frontend-sdk-kit.ts";
import { waitFor } from "../support/wait-for.ts";
import { type OAuthWorld, useOAuthWorld } from "./oauth-e2e-kit.ts";

// Nango's frontend SDK (`@nangohq/frontend`, bundled with `bun build`) on a page of
// its own origin opens Junction's Connect UI with `openConnectUI`, in Chromium.

const STEP_MS = 120_000;
const world = useOAuthWorld();

let browser: Browser;
let app: SdkApp;
beforeAll(async () => {
  browser = await launchChromium();
  app = await serveSdkApp();
});
afterAll(async () => {
  app?.stop();
  await browser?.close();
});

/** A Junction whose Connect UI the app's origin may frame, with an OAuth and three API-key integrations. */
async function connectWorld(): Promise<OAuthWorld> {
  const w = await world({ fake: { interactive: true }, env: { JUNCTION_CONNECT_UI_FRAME_ANCESTORS: app.origin } });
  await w.integration("cal");
  for (const provider of ["openai", "sendgrid", "trello"]) {
    const res = await w.j.api("POST", "/integrations", { unique_key: provider, provider });
    if (res.status !== 200) throw new Error(`integration ${provider}: ${res.text}`);
  }
  return w;
}

const everything = { end_user: { id: "user-1", email: "alice@example.com" } };

async function appPage(): Promise<Page> {
  const page = await browser.context.newPage();
  await page.setViewportSize({ width: 1100, height: 820 });
  await page.goto(app.url);
  return page;
}

const ui = (w: OAuthWorld) => ({ baseURL: `${w.j.baseUrl}/connect/`, apiURL: w.j.baseUrl });

describe("openConnectUI against Junction's Connect UI", () => {
  test(
    "lists what the session allows, searches, and an OAuth consent in the sign-in window ends in a connect event",
    async () => {
      const w = await connectWorld();
      const token = await w.session({ ...everything, allowed_integrations: ["cal", "openai", "sendgrid", "trello"] });
      const page = await appPage();
      const frame = await openUI(page, { ...ui(w), sessionToken: token });
      await frame.locator('#integrations button[data-key="cal"]').waitFor();
      expect(await frame.locator("#integrations button").count()).toBe(4);
      expect((await events(page))[0]).toEqual({ type: "ready" });
      await screenshot(page, "connect-ui-list");

      await frame.locator("#search").fill("open");
      expect(await frame.locator("#integrations button").allTextContents()).toEqual(["OOpenAI›"]);
      await frame.locator("#search").fill("zzz");
      expect(await frame.locator("#no-match").textContent()).toContain("zzz");
      await frame.locator("#search").fill("");

      // Keyboard only: the first integration is reached with Tab and opened with Enter.
      await frame.locator('#integrations button[data-key="cal"]').focus();
      await page.keyboard.press("Enter");
      await frame.locator("#connect-button").waitFor();
      expect(await frame.locator("h1").textContent()).toBe("Connect Google Calendar");
      const starts: string[] = [];
      browser.context.on("request", (r) => {
        if (r.url().includes("/oauth/connect/")) starts.push(r.url());
      });
      const popup = await clickForPopup(page, frame, "#connect-button");
      await popup.waitForSelector("#login_email");
      // As a provider's opener policy does (Cross-Origin-Opener-Policy): the window loses its opener, so
      // the callback page's message reaches nobody and the result comes over the SDK's socket alone.
      await popup.evaluate(() => {
        window.opener = null;
      });
      await popup.fill("#login_email", "alice@example.com");
      await popup.click("#allow");
      await frame.locator('h1[data-result="connected"]').waitFor();
      expect(new URL(starts[0] ?? "").searchParams.get("ws_client_id")).toMatch(/.+/);
      const [connectionId] = await w.connectionIds("cal");
      const heard = await waitForEvent(page, "connect");
      expect(heard.find((e) => e.type === "connect")).toEqual({
        type: "connect",
        payload: { providerConfigKey: "cal", connectionId, isPending: false },
      });
      await screenshot(page, "connect-ui-success");

      await frame.locator("#finish").click();
      await waitForEvent(page, "close");
      expect(await page.locator("#connect-ui").count()).toBe(0);
      expect((await events(page)).map((e) => e.type)).toEqual(["ready", "connect", "close"]);
    },
    STEP_MS,
  );

  test(
    "an API key typed into the form connects (empty: marked required, nothing sent); readable at 360 px",
    async () => {
      const w = await connectWorld();
      const token = await w.session({ ...everything, allowed_integrations: ["openai"] });
      const page = await appPage();
      const frame = await openUI(page, { ...ui(w), sessionToken: token });
      // One integration: its form opens at once, without a list to go back to.
      await frame.locator("#field-apiKey").waitFor();
      expect(await frame.locator(".back").count()).toBe(0);
      expect(await frame.locator(".help a").getAttribute("href")).toBe("https://platform.openai.com/api-keys");
      await screenshot(page, "connect-ui-form");

      await frame.locator("#connect-button").click();
      expect(await frame.locator("#field-apiKey").getAttribute("aria-invalid")).toBe("true");
      expect(await frame.locator("#field-apiKey-error").textContent()).toBe("Required");
      expect(await w.connectionIds("openai")).toEqual([]);

      await page.setViewportSize({ width: 360, height: 740 });
      const width = await frame.locator("#connect").evaluate((el) => el.getBoundingClientRect().width);
      expect(width).toBeLessThanOrEqual(360);
      const overflow = await frame.locator("body").evaluate((b) => b.scrollWidth > window.innerWidth);
      expect(overflow).toBe(false);
      await screenshot(page, "connect-ui-narrow");

      await frame.locator("#field-apiKey").fill("sk-typed-into-the-form");
      await frame.locator("#field-apiKey").press("Enter");
      await frame.locator('h1[data-result="connected"]').waitFor();
      const [connectionId] = await w.connectionIds("openai");
      const heard = await waitForEvent(page, "connect");
      expect(heard.find((e) => e.type === "connect")?.payload).toEqual({
        providerConfigKey: "openai",
        connectionId,
        isPending: false,
      });
      const read = await w.j.api("GET", `/connection/${connectionId}?provider_config_key=openai`);
      expect(read.body.credentials).toEqual({ type: "API_KEY", apiKey: "sk-typed-into-the-form" });
    },
    STEP_MS,
  );

  test(
    "the connect link opens the same UI as a page of its own",
    async () => {
      const w = await connectWorld();
      const created = await w.j.api("POST", "/connect/sessions", {
        ...everything,
        allowed_integrations: ["cal", "openai"],
      });
      const page = await browser.context.newPage();
      await page.goto(created.body.data.connect_link);
      await page.locator('#integrations button[data-key="openai"]').click();
      await page.locator("#field-apiKey").fill("sk-from-the-link");
      await page.locator("#connect-button").click();
      await page.locator('h1[data-result="connected"]').waitFor();
      expect(await page.locator(".body p.muted").textContent()).toBe("OpenAI is connected. You can close this tab.");
      // Nothing to close and nobody to tell: the page is not framed.
      expect(await page.locator('button[aria-label="Close"]').count()).toBe(0);
      expect(await w.connectionIds("openai")).toHaveLength(1);
    },
    STEP_MS,
  );

  test(
    "a declined consent shows its error and reports it; Try again connects",
    async () => {
      const w = await connectWorld();
      const token = await w.session({ ...everything, allowed_integrations: ["cal", "openai"] });
      const page = await appPage();
      const frame = await openUI(page, { ...ui(w), sessionToken: token });
      await frame.locator('#integrations button[data-key="cal"]').click();
      // The click opened the calendar's step (not the other integration's form) before its button is clicked.
      await frame.getByRole("heading", { name: "Connect Google Calendar", exact: true }).waitFor();
      const declined = await clickForPopup(page, frame, "#connect-button");
      await consent(declined, "deny");
      await frame.locator("#error").waitFor();
      expect(await frame.locator("#error").textContent()).toContain("Access was not allowed at Google Calendar");
      const heard = await waitForEvent(page, "error");
      expect(heard.find((e) => e.type === "error")).toEqual({
        type: "error",
        payload: {
          errorType: "callback_err",
          errorMessage: "Access was not allowed at Google Calendar. To connect, sign in again and choose Allow.",
        },
      });
      expect(await w.connectionIds("cal")).toEqual([]);
      await screenshot(page, "connect-ui-error");

      expect(await frame.locator("#connect-button").textContent()).toBe("Try again");
      const again = await clickForPopup(page, frame, "#connect-button");
      await consent(again, "allow");
      await frame.locator('h1[data-result="connected"]').waitFor();
      expect(await w.connectionIds("cal")).toHaveLength(1);
    },
    STEP_MS,
  );

  test(
    "dark theme and another language as the SDK asks; an expired session shows its error screen",
    async () => {
      const w = await connectWorld();
      const token = await w.session({ ...everything, allowed_integrations: ["cal", "openai", "sendgrid", "trello"] });
      const page = await appPage();
      const dark = await openUI(page, { ...ui(w), sessionToken: token, theme: "dark" });
      await dark.locator("#integrations").waitFor();
      const background = await dark.locator("#connect").evaluate((el) => getComputedStyle(el).backgroundColor);
      expect(background).toBe("rgb(26, 29, 36)");
      await screenshot(page, "connect-ui-dark");
      await dark.locator('button[aria-label="Close"]').click();
      await waitForEvent(page, "close");

      const french = await openUI(page, { ...ui(w), sessionToken: token, lang: "fr" });
      await french.locator("#integrations").waitFor();
      expect(await french.locator("h1").textContent()).toBe("Connecter un compte");
      // A real key in the frame: down there, up once Escape has removed the frame (a press, or a locator's,
      // may wait on the frame it removed).
      await french.locator("h1").focus();
      await page.keyboard.down("Escape");
      await page.waitForFunction(() => !document.querySelector("#connect-ui"));
      await page.keyboard.up("Escape");

      await w.clock.advance(31 * 60_000);
      const expired = await openUI(page, { ...ui(w), sessionToken: token });
      await expired.locator('h1[data-error="connect_session_expired"]').waitFor();
      expect(await expired.locator("#message").textContent()).toBe(
        "This connect link has expired. Go back to the app and start again.",
      );
      expect(await expired.locator("#retry").count()).toBe(0);
      await screenshot(page, "connect-ui-expired");
    },
    STEP_MS,
  );

  test(
    "framed by no origin the operator did not allow; a token posted by any frame but the parent is ignored",
    async () => {
      const w = await connectWorld();
      const token = await w.session({ ...everything, allowed_integrations: ["cal"] });
      const other = await serveSdkApp();
      try {
        // Another origin: Chromium refuses to show the UI in its frame (frame-ancestors).
        const refused = await browser.context.newPage();
        const uiResponses: number[] = [];
        refused.on("response", (r) => {
          if (r.url().startsWith(`${w.j.baseUrl}/connect/`)) uiResponses.push(r.status());
        });
        await refused.goto(other.url);
        await openUI(refused, { ...ui(w), sessionToken: token });
        await refused.waitForFunction(() => document.querySelector("#connect-ui") !== null);
        const uiFrame = () => refused.frames().find((f) => f !== refused.mainFrame());
        await waitFor(
          "the refused frame",
          () => uiResponses.length > 0 && uiFrame()?.url().startsWith("chrome-error:"),
        );
        expect(uiResponses).toEqual([200]);
        expect(await events(refused)).toEqual([]);

        // The allowed app opens the UI without a token; a sibling frame of another origin posts one.
        const page = await appPage();
        // Whose token the UI uses: the bearer of each GET /connect/session it sends.
        const sessionCalls: string[] = [];
        page.on("request", (r) => {
          if (r.url().endsWith("/connect/session")) sessionCalls.push(r.headers().authorization ?? "");
        });
        const siblingToken = await w.session({ ...everything, allowed_integrations: ["openai"] });
        const frame = await openUI(page, ui(w));
        await waitForEvent(page, "ready");
        await page.evaluate((src) => {
          const sibling = document.createElement("iframe");
          sibling.id = "sibling";
          sibling.src = src;
          document.body.append(sibling);
          return new Promise((resolve) => sibling.addEventListener("load", resolve));
        }, `${other.origin}/sibling`);
        const sibling = page.frames().find((f) => f.url().endsWith("/sibling"));
        if (!sibling) throw new Error("no sibling frame");
        await sibling.evaluate((t) => (window as unknown as { sendToken(t: string): void }).sendToken(t), siblingToken);
        // The parent's own message after it: messages between frames arrive in order.
        await page.evaluate((t) => (window as unknown as { setToken(t: string): void }).setToken(t), token);
        await frame.locator("#connect-button").waitFor();
        expect(sessionCalls).toEqual([`Bearer ${token}`]);
        expect(await frame.locator("h1").textContent()).toBe("Connect Google Calendar");
      } finally {
        other.stop();
      }
    },
    STEP_MS,
  );
});
