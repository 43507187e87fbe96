import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { startWebhookReceiver, type WebhookReceiver } from "../fake-upstream/index.ts";
import { startTestJunction, TEST_SECRET_KEY, type TestJunction } from "../support/embedded-junction.ts";
import { waitFor } from "../support/wait-for.ts";
import { type Browser, brokenWords, columnTexts, launchChromium, screenshot } from "./dashboard-browser-kit.ts";

// The dashboard in Debian's Chromium against the embedded Junction with the built-in sandbox upstream:
// the dashboard walk of docs/dashboard.md, one step per test, in order (they share the browser and the data).

const STEP_MS = 120_000;
const EMAIL = "dana@example.com";
const SHARED_URI_LISTED = "https://www.googleapis.com/calendar/v3/calendars/shared@example.com/events";
const SHARED_URI_SENT = "https://www.googleapis.com/calendar/v3/calendars/shared%40example.com/events";

let j: TestJunction;
let receiver: WebhookReceiver;
let browser: Browser;
let page: Page;
let webhookUrl = "";
/** Every URL the browser requested, popups included. */
const requested: string[] = [];
let connectionId = "";

const app = (view: string) => page.waitForSelector(`#app[data-view="${view}"]`);
/** Runs `action` and waits for the view it leads to; the old view is marked first, so it cannot be mistaken for the new one. */
const rendered = async (view: string, action: () => Promise<unknown>) => {
  await page.evaluate(() => {
    (document.getElementById("app") as HTMLElement).dataset.view = "stale";
  });
  await action();
  await app(view);
};
const go = (hash: string, view: string) =>
  rendered(view, () =>
    page.evaluate((h) => {
      location.hash = h;
    }, hash),
  );

beforeAll(async () => {
  j = await startTestJunction({ env: { JUNCTION_SANDBOX_UPSTREAM: "true" } });
  receiver = startWebhookReceiver();
  expect((await j.api("PUT", "/webhook-settings", { endpoints: [receiver.url] })).status).toBe(200);
  browser = await launchChromium();
  page = browser.page;
  browser.context.on("request", (r) => requested.push(r.url()));
  await browser.context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: j.url });
}, STEP_MS);

afterAll(async () => {
  await browser?.close();
  await receiver?.stop();
  await j?.close();
});

describe("the dashboard in a real browser", () => {
  test(
    "asks for the secret key, refuses a wrong one, and logs in with the right one",
    async () => {
      await page.goto(`${j.url}/`);
      expect(new URL(page.url()).pathname).toBe("/dashboard/login");
      await screenshot(page, "login");
      await page.fill("#secret_key", "jct_sk_not_a_key_of_this_junction");
      await page.click("#login");
      await page.waitForSelector("#login-error");
      expect(await page.textContent("#login-error")).toContain("not valid");
      await page.fill("#secret_key", TEST_SECRET_KEY);
      await page.click("#login");
      // The overview opens the dashboard.
      await app("overview");
      expect(new URL(page.url()).pathname).toBe("/dashboard");
      // Loads fast: one small script, the first view rendered from the API (generous bounds: CI is busy).
      const timing = await page.evaluate(() => {
        const script = performance.getEntriesByName(new URL("/dashboard/assets/app.js", location.href).href)[0];
        const nav = performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming;
        return {
          scriptBytes: (script as PerformanceResourceTiming | undefined)?.encodedBodySize ?? -1,
          domContentLoadedMs: nav.domContentLoadedEventEnd,
          renderMs: Number(document.getElementById("app")?.dataset.renderMs),
        };
      });
      expect(timing.scriptBytes).toBeGreaterThan(0);
      expect(timing.scriptBytes).toBeLessThan(100_000);
      expect(timing.domContentLoadedMs).toBeLessThan(10_000);
      expect(timing.renderMs).toBeLessThan(10_000);
      if (process.env.JUNCTION_DASHBOARD_TIMING) console.log("dashboard timing", timing);
      const cookies = await browser.context.cookies(`${j.url}/dashboard`);
      const session = cookies.find((c) => c.name === "junction_dashboard");
      expect(session).toMatchObject({ httpOnly: true, sameSite: "Strict", path: "/dashboard" });
      expect(session?.value).not.toContain(TEST_SECRET_KEY);
      expect(await page.content()).not.toContain(TEST_SECRET_KEY);
      // The next steps start from Integrations.
      await page.click('#nav a[data-nav="integrations"]');
      await app("integrations");
    },
    STEP_MS,
  );

  test(
    "creates an integration with its own client and scopes picked from the catalogue; the secret is never shown",
    async () => {
      await rendered("integrations", () => page.click("#new-integration"));
      await page.waitForSelector("#new-integration-form");
      await page.selectOption("#provider", "google-mail");
      await page.fill("#unique_key", "mail");
      const compose = "https://www.googleapis.com/auth/gmail.compose";
      const row = page.locator("#scopes label", { hasText: compose });
      expect(await row.textContent()).toContain("restricted");
      // Choosing scopes needs the client: without it the form says so and creates nothing.
      await row.locator("input").check();
      await page.click("#create");
      await page.waitForSelector("#create-result .error");
      expect((await j.api("GET", "/integrations/mail")).status).toBe(404);
      await page.fill("#client_id", "mail-client.apps.example");
      await page.fill("#client_secret", "mail-client-secret-value");
      await page.click("#create");
      await page.waitForSelector('section[data-integration="mail"]');
      const saved = (await j.api("GET", "/integrations/mail?include=credentials")).body.data.credentials;
      expect(saved).toMatchObject({
        client_id: "mail-client.apps.example",
        client_secret: null,
        client_secret_set: true,
      });
      expect(saved.scopes.split(",")).toContain(compose);
      expect(await page.content()).not.toContain("mail-client-secret-value");
      await go("#/integrations", "integrations");
      await page.waitForSelector('#integrations tr[data-key="mail"]');
    },
    STEP_MS,
  );

  test(
    "creates an integration from a template, with scopes and their sensitivity",
    async () => {
      await rendered("integrations", () => page.click("#new-integration"));
      await page.waitForSelector("#new-integration-form");
      await page.selectOption("#provider", "google-calendar");
      await page.fill("#unique_key", "cal");
      const sensitivity = await page.$$eval("#scopes label", (labels) => labels.map((l) => l.textContent ?? ""));
      expect(sensitivity.some((t) => t.includes("calendar.readonly") && t.includes("sensitive"))).toBe(true);
      expect(sensitivity.some((t) => t.includes("email") && t.includes("basic"))).toBe(true);
      await page.click("#create");
      await page.waitForSelector('section[data-integration="cal"]');
      expect((await j.api("GET", "/integrations/cal")).status).toBe(200);
    },
    STEP_MS,
  );

  test(
    "shows the webhook URL with a copy button, the redirect URI, and switches test credentials on",
    async () => {
      webhookUrl = ((await page.textContent("#webhook-url")) ?? "").trim();
      expect(webhookUrl).toMatch(new RegExp(`^${j.baseUrl}/webhook/env_[a-z0-9]+/cal$`));
      await page.click("#copy-webhook-url");
      await page.waitForSelector("#copy-webhook-url-status[data-copied]");
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(webhookUrl);
      expect((await page.textContent("#redirect-uri"))?.trim()).toBe(`${j.baseUrl}/oauth/callback`);

      await page.check("#test-mode");
      await page.waitForFunction(() => document.querySelector("#test-mode-status")?.textContent?.includes("sandbox"));
      expect((await j.api("GET", "/integrations/cal/test-mode")).body.data).toMatchObject({
        enabled: true,
        sandbox: true,
      });
      await screenshot(page, "integration-settings");
    },
    STEP_MS,
  );

  test(
    "authorizes a test connection in a new window and shows it when the callback completes",
    async () => {
      const [popup] = await Promise.all([page.waitForEvent("popup"), page.click("#test-connection")]);
      await popup.waitForSelector("#login_email");
      await popup.fill("#login_email", EMAIL);
      await popup.click("#allow");
      await popup.waitForSelector("#code");
      expect(await popup.textContent("#code")).toBe("connected");
      const result = await page.waitForSelector("#authorize-result[data-connection-id]");
      connectionId = (await result.getAttribute("data-connection-id")) ?? "";
      expect(connectionId).not.toBe("");
      const listed = await j.api("GET", "/connections?integrationId=cal");
      expect(listed.body.connections.map((c: { connection_id: string }) => c.connection_id)).toContain(connectionId);
    },
    STEP_MS,
  );

  test(
    "lists and searches connections, and shows one with its connection_config",
    async () => {
      await j.clients.connection.updateConnection({
        providerConfigKey: "cal",
        connectionId,
        webhookUrlOverride: "https://hooks.example.test/dashboard",
      });
      await go(`#/connections?search=${encodeURIComponent(connectionId.slice(2, 12))}`, "connections");
      await page.waitForSelector(`#connections tr[data-connection-id="${connectionId}"]`);
      await go("#/connections?search=nobody-has-this", "connections");
      await page.waitForSelector("#no-connections");
      await go("#/connections", "connections");
      expect(await page.textContent("#connections-count")).toContain("of 1");
      await screenshot(page, "connections");
      await page.click(`#connections tr[data-connection-id="${connectionId}"] a`);
      await page.waitForSelector(`section[data-connection-id="${connectionId}"]`);
      expect(await page.textContent("#connection-config")).toContain("emailAddressHash");
      // The operator's credential-reads setting, read-only; the page itself never holds the token.
      expect(await page.textContent('#credential-reads[data-credential-reads="true"]')).toContain(
        "JUNCTION_CREDENTIAL_READS",
      );
      const { credentials } = await j.clients.connection.getCredentials({ providerConfigKey: "cal", connectionId });
      expect(await page.content()).not.toContain(credentials?.accessToken as string);
      // Nango's tags, derived from the test session's end user.
      expect(await page.textContent('#connection-tags [data-tag="end_user_id"]')).toBe("end_user_id=dashboard-test ");
      expect(await page.textContent("#connection-webhook-url-override")).toBe("https://hooks.example.test/dashboard");
      // Cleared again: the later steps expect this connection's webhooks at the test's receiver.
      await j.clients.connection.updateConnection({ providerConfigKey: "cal", connectionId, webhookUrlOverride: "" });
    },
    STEP_MS,
  );

  test(
    "edits metadata as JSON: checked first, saved with POST so that removed keys go",
    async () => {
      await page.fill("#metadata", "{not json");
      await page.click("#save-metadata");
      await page.waitForSelector('#metadata-result [data-code="invalid_metadata_local"]');
      await page.fill("#metadata", JSON.stringify({ calendarWatchResourceUris: "not-a-list" }));
      await page.click("#save-metadata");
      expect(await page.textContent("#metadata-result")).toContain(
        "calendarWatchResourceUris must be an array of strings",
      );

      const path = `/connections/${connectionId}?provider_config_key=cal`;
      await page.fill("#metadata", JSON.stringify({ team: "blue", calendarWatchResourceUris: [SHARED_URI_LISTED] }));
      await page.click("#save-metadata");
      await page.waitForSelector("#metadata-saved");
      expect((await j.api("GET", path)).body.metadata).toEqual({
        team: "blue",
        calendarWatchResourceUris: [SHARED_URI_LISTED],
      });
      await page.fill("#metadata", JSON.stringify({ calendarWatchResourceUris: [SHARED_URI_LISTED] }, null, 2));
      await page.click("#save-metadata");
      await page.waitForSelector("#metadata-saved");
      expect((await j.api("GET", path)).body.metadata).toEqual({ calendarWatchResourceUris: [SHARED_URI_LISTED] });
      await screenshot(page, "connection");
    },
    STEP_MS,
  );

  test(
    "shows a refresh failure on the connection page with the provider's reason and what to do",
    async () => {
      // An integration with its own client, which the sandbox does not know, and a connection imported
      // with an expired token: the refresh is refused (invalid_client) and recorded on the connection.
      const sandbox = j.logLines.map((l) => JSON.parse(l)).find((l) => l.msg === "sandbox upstream listening")?.url;
      expect(sandbox).toStartWith("http://");
      const own = await j.api("POST", "/integrations", {
        unique_key: "cal-own",
        provider: "google-calendar",
        credentials: { type: "OAUTH2", client_id: "not-registered-upstream", client_secret: "client-secret-value" },
        upstream_overrides: { base_url: sandbox, token_url: `${sandbox}/token` },
      });
      expect(own.status).toBe(200);
      const imported = await j.api("POST", "/connections", {
        provider_config_key: "cal-own",
        connection_id: "stale-import",
        credentials: { type: "OAUTH2", access_token: "expired-token", refresh_token: "never-issued", expires_at: 1000 },
      });
      expect(imported.status).toBe(200);
      const call = await j.api("GET", "/proxy/calendar/v3/users/me/calendarList/primary", undefined, {
        "provider-config-key": "cal-own",
        "connection-id": "stale-import",
      });
      expect(call.status).toBe(424);
      await go("#/connections/cal-own/stale-import", "connections");
      const error = await page.waitForSelector('#connection-errors li[data-error-type="refresh_failed"]');
      const text = (await error.textContent()) ?? "";
      expect(text).toContain("invalid_client");
      expect(text).toContain("What to do");
      expect(text).not.toContain("never-issued");
      expect(text).not.toContain("client-secret-value");
      await screenshot(page, "connection-error");
    },
    STEP_MS,
  );

  test(
    "shows forwarded notifications, finds the unmatched one with its encoding hint, and replays",
    async () => {
      // A channel created through the proxy makes the sandbox send "sync" to the webhook URL; Junction
      // matches it to the connection by emailAddressHash and forwards it.
      const watch = await j.api(
        "POST",
        `/proxy/calendar/v3/calendars/${encodeURIComponent(EMAIL)}/events/watch`,
        {
          id: "dash-chan-1",
          type: "web_hook",
          address: webhookUrl,
          expiration: Date.now() + 7 * 24 * 3_600_000,
        },
        { "provider-config-key": "cal", "connection-id": connectionId },
      );
      expect(watch.status).toBe(200);
      // A notification for a calendar only listed in another encoding matches nothing.
      const foreign = await fetch(webhookUrl, {
        method: "POST",
        headers: {
          "x-goog-channel-id": "someone-elses-channel",
          "x-goog-resource-id": "res-shared",
          "x-goog-resource-uri": SHARED_URI_SENT,
          "x-goog-resource-state": "exists",
          "x-goog-message-number": "7",
        },
      });
      expect(foreign.status).toBe(200);
      const forwards = () => receiver.received.filter((r) => r.body.includes('"type":"forward"'));
      await waitFor("two forwarded notifications", () => forwards().length >= 2, 30_000);

      await go("#/deliveries?type=forward", "deliveries");
      await page.waitForSelector("#deliveries tbody tr >> nth=1");
      const matchedRow = page.locator("#deliveries tbody tr", { hasText: connectionId });
      await expect(matchedRow.count()).resolves.toBe(1);
      await screenshot(page, "deliveries");

      await rendered("deliveries", () => page.check("#filter-unmatched"));
      expect(await page.evaluate(() => location.hash)).toContain("unmatched=true");
      const unmatchedRows = page.locator("#deliveries tbody tr");
      await expect(unmatchedRows.count()).resolves.toBe(1);
      await unmatchedRows.first().locator("a").click();
      await page.waitForSelector("#near-matches");
      expect(await page.textContent("#unmatched-uri")).toBe(SHARED_URI_SENT);
      expect(await page.getAttribute("#near-matches li", "data-connection-id")).toBe(connectionId);
      await screenshot(page, "delivery-unmatched");

      await go(`#/deliveries?connection=${encodeURIComponent(connectionId)}&type=forward`, "deliveries");
      await page.locator("#deliveries tbody tr a").first().click();
      await page.waitForSelector('#message[data-status="succeeded"]');
      const before = receiver.received.length;
      const attempts = Number(await page.getAttribute("#message", "data-attempts"));
      await page.click("#replay");
      await page.waitForSelector(`#message[data-attempts="${attempts + 1}"]`);
      const again = await receiver.waitFor(before + 1, 30_000);
      const replayed = again[again.length - 1];
      expect(replayed?.body).toContain(connectionId);
      const firstDelivery = again.find((r) => r.headers["webhook-id"] === replayed?.headers["webhook-id"]);
      expect(firstDelivery).not.toBe(replayed);
    },
    STEP_MS,
  );

  test(
    "lists channels and stops all of an integration's behind a confirmation, upstream",
    async () => {
      await go(`#/connections/cal/${encodeURIComponent(connectionId)}`, "connections");
      await page.waitForSelector('#connection-channels tr[data-channel-id="dash-chan-1"][data-state="active"]');
      await go("#/channels?integration=cal", "channels");
      await page.waitForSelector('#channels-active tr[data-channel-id="dash-chan-1"]');
      // Links to the channel calls in the operations log: the integration's, and each channel's own.
      expect(await page.getAttribute("#channel-operations", "href")).toBe("#/logs?kind=channel_call&integration=cal");
      expect(await page.getAttribute('tr[data-channel-id="dash-chan-1"] a.channel-calls', "href")).toBe(
        "#/logs?kind=channel_call&tag=channel%3Adash-chan-1",
      );
      await screenshot(page, "channels");
      await page.click("#stop-all");
      await page.fill("#stop-all-typed", "wrong");
      await page.click("#stop-all-go");
      expect(await page.textContent("#stop-all-result")).toContain("to confirm");
      await page.fill("#stop-all-typed", "cal");
      await page.click("#stop-all-go");
      await page.waitForSelector("#stop-all-summary");
      expect(await page.textContent("#stop-all-summary")).toContain("Stopped 1 channel");
      // The upstream no longer knows the channel: stopping it again is its 404.
      const again = await j.api(
        "POST",
        "/proxy/calendar/v3/channels/stop",
        { id: "dash-chan-1", resourceId: "x" },
        {
          "provider-config-key": "cal",
          "connection-id": connectionId,
        },
      );
      expect(again.status).toBe(404);
      await waitFor(
        "the registry to show the channel stopped",
        async () => {
          await go(`#/channels?integration=cal&t=${Date.now()}`, "channels");
          return (await page.$('#channels-ended tr[data-channel-id="dash-chan-1"]')) !== null;
        },
        30_000,
        200,
      );
    },
    STEP_MS,
  );

  test(
    "shows the scripts page, and logging out ends the session",
    async () => {
      // A sync deployed twice (two versions), run once through /sync/trigger, logging at two levels.
      const source = (greeting: string) => `export default createSync({
        frequency: "every day",
        exec: async (nango) => {
          await nango.log("${greeting} from the dashboard test");
          await nango.log("something to look at", { level: "warn" });
        },
      });`;
      for (const greeting of ["hello", "hello again"]) {
        const deployed = await j.api("POST", "/scripts", {
          provider_config_key: "cal",
          name: "hello",
          source: source(greeting),
        });
        expect(deployed.status).toBe(201);
      }
      const trigger = await j.api("POST", "/sync/trigger", {
        provider_config_key: "cal",
        connection_id: connectionId,
        syncs: ["hello"],
      });
      expect(trigger.status).toBe(200);
      const runId: string = trigger.body.runs[0].id;
      await waitFor(
        "the triggered run to finish",
        async () => {
          const run = await j.api("GET", `/scripts/runs/${runId}`);
          return run.body.data?.status === "succeeded";
        },
        30_000,
        100,
      );

      await go("#/scripts", "scripts");
      expect(await page.$("#page-error")).toBeNull();
      expect(await page.textContent("#scripts-table")).toContain("hello");
      expect(await page.$(`#latest-script-runs a[href="#/scripts/runs/${runId}"]`)).not.toBeNull();
      // As the other pages: labels in words, dates and durations as Deliveries shows them, no word broken.
      for (const table of ["#scripts-table", "#latest-script-runs table"]) {
        const labels = await page.$$eval(`${table} th`, (ths) => ths.map((th) => th.textContent ?? ""));
        expect(labels.filter((l) => !/^[A-Z][a-z]+( [a-z]+)*$/.test(l))).toEqual([]);
        expect(await brokenWords(page, table)).toEqual([]);
      }
      const run = (await j.api("GET", `/scripts/runs/${runId}`)).body.data;
      const [script] = (await j.api("GET", "/scripts")).body.data;
      const local = (iso: string) => page.evaluate((at) => new Date(at).toLocaleString(), iso);
      expect(await columnTexts(page, "#latest-script-runs table", "Started")).toEqual([await local(run.started_at)]);
      expect(await columnTexts(page, "#scripts-table", "Deployed")).toEqual([await local(script.created_at)]);
      expect(await columnTexts(page, "#latest-script-runs table", "Duration")).toEqual([
        `${Math.round(run.duration_ms)} ms`,
      ]);
      await screenshot(page, "scripts");

      await rendered("scripts", () => page.click('#scripts-table a[href="#/scripts/cal/hello"]'));
      const versions = await page.$$eval("#versions-table tbody tr td:first-child", (cells) =>
        cells.map((c) => c.textContent),
      );
      expect(versions).toEqual(["2", "1"]);
      expect(await page.textContent("#script-source")).toContain("hello again");

      await rendered("scripts", () => page.click(`a[href="#/scripts/runs/${runId}"]`));
      const logs = await page.textContent("#run-logs");
      expect(logs).toContain("INFO hello again from the dashboard test");
      expect(logs).toContain("WARN something to look at");
      expect(await brokenWords(page, "#run-fields")).toEqual([]);
      await screenshot(page, "script-run");

      // An action: listed with how it runs; its run shows what it answered.
      const action = await j.api("POST", "/scripts", {
        provider_config_key: "cal",
        name: "answer",
        source: "export default createAction({ exec: async (nango, input) => ({ answer: input.n * 6 }) });",
      });
      expect(action.status).toBe(201);
      const answered = await j.api(
        "POST",
        "/action/trigger",
        { action_name: "answer", input: { n: 7 } },
        { "provider-config-key": "cal", "connection-id": connectionId },
      );
      expect([answered.status, answered.body]).toEqual([200, { answer: 42 }]);
      const [actionRun] = (await j.api("GET", "/scripts/runs?script=answer")).body.data;
      await go("#/scripts", "scripts");
      expect(await page.textContent("#scripts-table")).toContain("on POST /action/trigger");
      await rendered("scripts", () => page.click(`a[href="#/scripts/runs/${actionRun.id}"]`));
      expect(JSON.parse((await page.textContent("#run-output")) ?? "")).toEqual({ answer: 42 });
      await go("#/integrations", "integrations");
      await screenshot(page, "integrations");
      await page.click("#logout");
      await page.waitForURL(/\/dashboard\/login$/);
      await page.goto(`${j.url}/dashboard`);
      expect(new URL(page.url()).pathname).toBe("/dashboard/login");
    },
    STEP_MS,
  );

  test("needed no network but the local one", () => {
    expect(requested.length).toBeGreaterThan(10);
    const elsewhere = requested.filter(
      (u) => !/^(about:|data:)/.test(u) && !["127.0.0.1", "localhost"].includes(new URL(u).hostname),
    );
    expect(elsewhere).toEqual([]);
  });
});
