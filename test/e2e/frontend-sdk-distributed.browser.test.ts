import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page, Request } from "playwright-core";
import { startNatsServer } from "@junction/bus/testing/nats-server";
import { freePort } from "@junction/platform/testing/free-port";
import { type FakeUpstream, startFakeUpstream } from "../fake-upstream/index.ts";
import { type DistributedJunction, gatewayApi, startDistributedJunction } from "../support/distributed-junction.ts";
import { type JunctionProcess, startJunctionProcess } from "../support/junction-process.ts";
import { tempDir } from "../support/temp-dir.ts";
import { waitFor } from "../support/wait-for.ts";
import { openUI, waitForEvent } from "./connect-ui-browser-kit.ts";
import { type Browser, launchChromium } from "./dashboard-browser-kit.ts";
import { consent, openApp, type SdkApp, sdkOutcome, serveSdkApp, startAuth } from "./frontend-sdk-kit.ts";
import { CLIENT, calendarIntegration } from "./oauth-e2e-kit.ts";

// The distributed topology with two gateway processes: the frontend SDK's socket is held by gateway A
// (the SDK's host), the provider sends the browser back to gateway B ({base_url}); the result crosses
// NATS to the socket. The SDK uses the configured socket path (JUNCTION_WEBSOCKETS_PATH). The same for
// Junction's Connect UI (`openConnectUI` framing gateway A's /connect/), whose socket is A's too.

const SECRET = "jct_sk_frontend_sdk_distributed_0123456789";
const SOCKET_PATH = "/sdk-socket";
let nats: Awaited<ReturnType<typeof startNatsServer>>;
let fake: FakeUpstream;
let junction: DistributedJunction;
let gatewayB: JunctionProcess;
let urlB = "";
let browser: Browser;
let app: SdkApp;
const data = tempDir();

const api = gatewayApi(() => junction.gatewayUrl, SECRET);

beforeAll(async () => {
  app = await serveSdkApp();
  nats = await startNatsServer();
  fake = await startFakeUpstream({ clients: [CLIENT], interactive: true });
  const portB = await freePort();
  urlB = `http://127.0.0.1:${portB}`;
  junction = await startDistributedJunction({
    natsUrl: nats.url,
    dataDir: data.path,
    secretKey: SECRET,
    services: ["connection"],
    baseUrl: urlB,
    env: {
      JUNCTION_WEBSOCKETS_PATH: SOCKET_PATH,
      JUNCTION_LOG_LEVEL: "warn",
      JUNCTION_CONNECT_UI_FRAME_ANCESTORS: app.origin,
    },
  });
  gatewayB = startJunctionProcess("gateway-b", ["serve", "gateway"], { ...junction.env, PORT: String(portB) });
  try {
    await gatewayB.listening();
    await waitFor("gateway B to report healthy", async () => (await fetch(`${urlB}/health`)).ok, 30_000, 50);
  } catch (err) {
    throw new Error(`${(err as Error).message}\n${gatewayB.output()}`);
  }
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  app?.stop();
  await browser?.close();
  await gatewayB?.stop();
  await junction?.stop();
  await fake?.stop();
  await nats?.stop();
  data.remove();
});

/** An OAuth integration `key` whose provider is the local fake. */
async function oauthIntegration(key: string): Promise<void> {
  const integ = await api("POST", "/integrations", calendarIntegration(fake, key));
  expect(integ.status).toBe(200);
}

async function sessionToken(allowed: string[]): Promise<string> {
  const session = await api("POST", "/connect/sessions", {
    end_user: { id: "user-1", email: "alice@example.com" },
    allowed_integrations: allowed,
  });
  expect(session.status).toBe(201);
  return session.body.data.token as string;
}

async function connectionIds(integration: string): Promise<string[]> {
  const listed = await api("GET", `/connections?integrationId=${integration}`);
  return (listed.body.connections as { connection_id: string }[]).map((c) => c.connection_id);
}

/** The main-frame addresses `popup` visits from now on. */
function visits(popup: Page): string[] {
  const visited: string[] = [];
  popup.on("framenavigated", (frame) => {
    if (frame === popup.mainFrame()) visited.push(frame.url());
  });
  return visited;
}

describe("the frontend SDK's auth() in the distributed topology", () => {
  test("the socket on gateway A hears of the consent whose callback gateway B served", async () => {
    await oauthIntegration("cal");
    const token = await sessionToken(["cal"]);
    const page = await openApp(browser, app);
    const options = {
      host: junction.gatewayUrl,
      connectSessionToken: token,
      websocketsPath: SOCKET_PATH,
    };
    const popup = (await startAuth(page, options, "cal")) as NonNullable<Awaited<ReturnType<typeof startAuth>>>;
    const visited = visits(popup);
    await consent(popup, "allow");
    const outcome = await sdkOutcome(page);
    const ids = await connectionIds("cal");
    expect(ids).toHaveLength(1);
    expect(outcome).toEqual({ ok: { providerConfigKey: "cal", connectionId: ids[0] as string, isPending: false } });
    // The callback was gateway B's, the socket gateway A's: the result crossed the bus.
    expect(visited.some((u) => u.startsWith(`${urlB}/oauth/callback?`))).toBe(true);
    expect(visited.some((u) => u.startsWith(`${junction.gatewayUrl}/oauth/callback`))).toBe(false);
  }, 120_000);
});

describe("openConnectUI with Junction's Connect UI in the distributed topology", () => {
  beforeAll(async () => {
    await oauthIntegration("cal-ui");
    const created = await api("POST", "/integrations", { unique_key: "openai-ui", provider: "openai" });
    expect(created.status).toBe(200);
  });

  test("an OAuth consent whose callback gateway B served ends in a connect event from the UI on gateway A", async () => {
    const token = await sessionToken(["cal-ui", "openai-ui"]);
    const page = await openApp(browser, app);
    const frame = await openUI(page, {
      baseURL: `${junction.gatewayUrl}/connect/`,
      apiURL: junction.gatewayUrl,
      sessionToken: token,
    });
    await frame.locator('#integrations button[data-key="cal-ui"]').click();
    const starts: string[] = [];
    const onRequest = (r: Request) => {
      if (r.url().includes("/oauth/connect/")) starts.push(r.url());
    };
    browser.context.on("request", onRequest);
    const [popup] = await Promise.all([page.waitForEvent("popup"), frame.locator("#connect-button").click()]);
    const visited = visits(popup);
    await popup.waitForSelector("#login_email");
    // No opener: the callback page's message reaches nobody, so the UI can hear of the consent only
    // through its socket on gateway A, which only the bus can tell (gateway B serves the callback).
    await popup.evaluate(() => {
      window.opener = null;
    });
    await consent(popup, "allow");
    const heard = await waitForEvent(page, "connect");
    browser.context.off("request", onRequest);
    const ids = await connectionIds("cal-ui");
    expect(ids).toHaveLength(1);
    expect(heard.find((e) => e.type === "connect")).toEqual({
      type: "connect",
      payload: { providerConfigKey: "cal-ui", connectionId: ids[0], isPending: false },
    });
    expect(await frame.locator('h1[data-result="connected"]').count()).toBe(1);
    // The UI's socket was gateway A's (its id went to A's /oauth/connect), the callback gateway B's.
    const start = new URL(starts[0] ?? "");
    expect(start.origin).toBe(junction.gatewayUrl);
    expect(start.searchParams.get("ws_client_id")).toMatch(/.+/);
    expect(visited.some((u) => u.startsWith(`${urlB}/oauth/callback?`))).toBe(true);
    expect(visited.some((u) => u.startsWith(`${junction.gatewayUrl}/oauth/callback`))).toBe(false);
  }, 120_000);

  test("an API key typed into the UI's form connects", async () => {
    const token = await sessionToken(["openai-ui"]);
    const page = await openApp(browser, app);
    const frame = await openUI(page, {
      baseURL: `${junction.gatewayUrl}/connect/`,
      apiURL: junction.gatewayUrl,
      sessionToken: token,
    });
    await frame.locator("#field-apiKey").fill("sk-typed-in-the-distributed-ui");
    await frame.locator("#connect-button").click();
    const heard = await waitForEvent(page, "connect");
    const ids = await connectionIds("openai-ui");
    expect(ids).toHaveLength(1);
    expect(heard.find((e) => e.type === "connect")?.payload).toEqual({
      providerConfigKey: "openai-ui",
      connectionId: ids[0],
      isPending: false,
    });
    const read = await api("GET", `/connection/${ids[0]}?provider_config_key=openai-ui`);
    expect(read.body.credentials).toEqual({ type: "API_KEY", apiKey: "sk-typed-in-the-distributed-ui" });
  }, 120_000);
});
