import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startNatsServer } from "@junction/bus/testing/nats-server";
import { freePort } from "@junction/platform/testing/free-port";
import { type FakeUpstream, startFakeUpstream } from "../fake-upstream/index.ts";
import { type DistributedJunction, startDistributedJunction } from "../support/distributed-junction.ts";
import { type JunctionProcess, startJunctionProcess } from "../support/junction-process.ts";
import { tempDir } from "../support/temp-dir.ts";
import { waitFor } from "../support/wait-for.ts";
import { type Browser, launchChromium } from "./dashboard-browser-kit.ts";
import { consent, openApp, type SdkApp, sdkOutcome, serveSdkApp, startAuth } from "./frontend-sdk-kit.ts";
import { CALENDAR_SCOPE, CLIENT } from "./oauth-e2e-kit.ts";

// The distributed topology with two gateway processes: the frontend SDK's socket is held by gateway A
// (the SDK's host), the provider sends the browser back to gateway B ({base_url}); the result crosses
// NATS to the socket. The SDK uses the configured socket path (JUNCTION_WEBSOCKETS_PATH).

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

async function api(method: string, path: string, body?: unknown) {
  const res = await fetch(`${junction.gatewayUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${SECRET}`, ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: (await res.json()) as any };
}

beforeAll(async () => {
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
    env: { JUNCTION_WEBSOCKETS_PATH: SOCKET_PATH, JUNCTION_LOG_LEVEL: "warn" },
  });
  gatewayB = startJunctionProcess("gateway-b", ["serve", "gateway"], { ...junction.env, PORT: String(portB) });
  try {
    await gatewayB.listening();
    await waitFor("gateway B to report healthy", async () => (await fetch(`${urlB}/health`)).ok, 30_000, 50);
  } catch (err) {
    throw new Error(`${(err as Error).message}\n${gatewayB.output()}`);
  }
  browser = await launchChromium();
  app = await serveSdkApp();
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

describe("the frontend SDK's auth() in the distributed topology", () => {
  test("the socket on gateway A hears of the consent whose callback gateway B served", async () => {
    const integ = await api("POST", "/integrations", {
      unique_key: "cal",
      provider: "google-calendar",
      credentials: {
        type: "OAUTH2",
        client_id: CLIENT.clientId,
        client_secret: CLIENT.clientSecret,
        scopes: ["openid", "email", CALENDAR_SCOPE],
      },
      upstream_overrides: {
        base_url: fake.url,
        authorization_url: fake.endpoints.authorizationUrl,
        token_url: fake.endpoints.tokenUrl,
      },
    });
    expect(integ.status).toBe(200);
    const session = await api("POST", "/connect/sessions", {
      end_user: { id: "user-1", email: "alice@example.com" },
      allowed_integrations: ["cal"],
    });
    const page = await openApp(browser, app);
    const options = {
      host: junction.gatewayUrl,
      connectSessionToken: session.body.data.token as string,
      websocketsPath: SOCKET_PATH,
    };
    const popup = (await startAuth(page, options, "cal")) as NonNullable<Awaited<ReturnType<typeof startAuth>>>;
    const visited: string[] = [];
    popup.on("framenavigated", (frame) => {
      if (frame === popup.mainFrame()) visited.push(frame.url());
    });
    await consent(popup, "allow");
    const outcome = await sdkOutcome(page);
    const listed = await api("GET", "/connections?integrationId=cal");
    const ids = (listed.body.connections as { connection_id: string }[]).map((c) => c.connection_id);
    expect(ids).toHaveLength(1);
    expect(outcome).toEqual({ ok: { providerConfigKey: "cal", connectionId: ids[0] as string, isPending: false } });
    // The callback was gateway B's, the socket gateway A's: the result crossed the bus.
    expect(visited.some((u) => u.startsWith(`${urlB}/oauth/callback?`))).toBe(true);
    expect(visited.some((u) => u.startsWith(`${junction.gatewayUrl}/oauth/callback`))).toBe(false);
  }, 120_000);
});
