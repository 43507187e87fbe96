import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Browser, launchChromium } from "./dashboard-browser-kit.ts";
import { consent, openApp, type SdkApp, sdkOutcome, serveSdkApp, startAuth } from "./frontend-sdk-kit.ts";
import { type OAuthWorld, useOAuthWorld } from "./oauth-e2e-kit.ts";

// Nango's frontend SDK (@nangohq/frontend 0.71) unchanged against Junction, in Chromium, from a page on
// its own origin: `auth()` opens the WebSocket, gets its id, opens the popup, and ends with what the
// socket says; with credentials it posts them to /api-auth.

const STEP_MS = 120_000;
const world = useOAuthWorld();

/** An operator's API-key provider and its integration "keyed", for the session's second integration. */
async function keyedIntegration(w: OAuthWorld): Promise<void> {
  const provider = await w.j.api("POST", "/providers", {
    name: "keyco",
    displayName: "KeyCo",
    authMode: "API_KEY",
    docsUrl: "https://docs.keyco.test/keys",
    baseUrl: `${w.fake.url}/keyco`,
    apiKey: { in: "header", name: "x-api-key", prefix: "" },
    scopes: [],
    defaultScopes: [],
  });
  if (provider.status !== 201) throw new Error(`provider: ${provider.status} ${provider.text}`);
  const integ = await w.j.api("POST", "/integrations", { unique_key: "keyed", provider: "keyco" });
  if (integ.status !== 200) throw new Error(`integration: ${integ.status} ${integ.text}`);
}

async function sessionFor(w: OAuthWorld, allowed: string[]): Promise<string> {
  return w.session({ end_user: { id: "user-1", email: "alice@example.com" }, allowed_integrations: allowed });
}

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

describe("the frontend SDK's auth() against Junction", () => {
  test(
    "OAuth: the popup's consent resolves auth() with the new connection, which the REST API lists",
    async () => {
      const w = await world({ fake: { interactive: true } });
      await w.integration();
      const token = await sessionFor(w, ["cal"]);
      const page = await openApp(browser, app);
      const popup = await startAuth(page, { host: w.j.url, connectSessionToken: token }, "cal");
      await consent(popup as NonNullable<typeof popup>, "allow");
      const outcome = await sdkOutcome(page);
      const ids = await w.connectionIds();
      expect(ids).toHaveLength(1);
      expect(outcome).toEqual({ ok: { providerConfigKey: "cal", connectionId: ids[0] as string, isPending: false } });
    },
    STEP_MS,
  );

  test(
    "a declined consent rejects auth() with an AuthError of type callback_err, and saves nothing",
    async () => {
      const w = await world({ fake: { interactive: true } });
      await w.integration();
      const page = await openApp(browser, app);
      const popup = await startAuth(page, { host: w.j.url, connectSessionToken: await sessionFor(w, ["cal"]) }, "cal");
      await consent(popup as NonNullable<typeof popup>, "deny");
      const outcome = await sdkOutcome(page);
      expect(outcome).toMatchObject({ err: { authError: true, type: "callback_err" } });
      expect("err" in outcome && outcome.err.message).toContain("access_denied");
      expect(await w.connectionIds()).toEqual([]);
    },
    STEP_MS,
  );

  test(
    "an API key: auth() with credentials connects through /api-auth/api-key, and without them through the popup's form",
    async () => {
      const w = await world({ fake: { interactive: true } });
      await keyedIntegration(w);
      const page = await openApp(browser, app);
      const host = { host: w.j.url, connectSessionToken: await sessionFor(w, ["keyed"]) };
      await startAuth(page, host, "keyed", { credentials: { apiKey: "key-typed-in-the-app" } }, false);
      const viaCredentials = await sdkOutcome(page);
      const [first] = await w.connectionIds("keyed");
      expect(viaCredentials).toEqual({ ok: { providerConfigKey: "keyed", connectionId: first as string } });
      const stored = await w.j.clients.connection.getCredentials({ providerConfigKey: "keyed", connectionId: first });
      expect(stored.credentials?.apiKey).toBe("key-typed-in-the-app");

      // No credentials: the popup shows Junction's form, and its submission ends auth() the same way.
      const popup = await startAuth(page, { ...host, connectSessionToken: await sessionFor(w, ["keyed"]) }, "keyed");
      const form = popup as NonNullable<typeof popup>;
      await form.waitForSelector("#field-apiKey");
      await form.fill("#field-apiKey", "key-typed-in-the-popup");
      await form.click("#connect-form button[type=submit]");
      const viaPopup = await sdkOutcome(page);
      const ids = await w.connectionIds("keyed");
      expect(ids).toHaveLength(2);
      const second = ids.find((id) => id !== first) as string;
      expect(viaPopup).toEqual({ ok: { providerConfigKey: "keyed", connectionId: second, isPending: false } });

      // A wrong key for the session's integration: Nango's error body, readable by the app's origin.
      await startAuth(page, host, "cal", { credentials: { apiKey: "k" } }, false);
      expect(await sdkOutcome(page)).toMatchObject({ err: { authError: true, type: "integration_not_allowed" } });
    },
    STEP_MS,
  );
});
