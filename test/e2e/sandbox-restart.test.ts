import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { ManualClock } from "@junction/platform";
import { startTestJunction, type TestJunction } from "../support/embedded-junction.ts";
import { tempDir } from "../support/temp-dir.ts";
import { connectInBrowser, integration } from "./sandbox-kit.ts";

// Two starts of `npm start` with JUNCTION_SANDBOX_UPSTREAM=true on one data dir.
setDefaultTimeout(60_000);

const HOUR = 3_600_000;
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function start(dataDir: string, clock: ManualClock): Promise<TestJunction> {
  const j = await startTestJunction({ dataDir, clock, env: { JUNCTION_SANDBOX_UPSTREAM: "true" } });
  cleanups.push(() => j.close({ keepData: true }));
  return j;
}

const CONNECTIONS = [
  {
    key: "cal",
    provider: "google-calendar",
    email: "me@example.org",
    read: "/calendar/v3/calendars/me%40example.org/events",
  },
  { key: "outlook", provider: "microsoft-outlook-calendar", email: "adele@contoso.example", read: "/v1.0/me" },
];

describe("the sandbox upstream across a restart", () => {
  test("connections made through it still proxy, and refresh, after Junction restarts on the same data dir", async () => {
    const dir = tempDir("junction-sandbox-restart-");
    cleanups.push(() => dir.remove());
    const clock = new ManualClock();
    const first = await start(dir.path, clock);
    const ids: Record<string, string> = {};
    for (const c of CONNECTIONS) {
      await integration(first, { unique_key: c.key, provider: c.provider });
      ids[c.key] = await connectInBrowser(first, c.key, c.email);
      const headers = { "provider-config-key": c.key, "connection-id": ids[c.key] as string };
      expect((await first.api("GET", `/proxy${c.read}`, undefined, headers)).status).toBe(200);
    }
    const sandboxUrl = (
      await first.clients.connection.getCredentials({ providerConfigKey: "cal", connectionId: ids.cal as string })
    ).integration?.overrides?.baseUrl;
    await first.close({ keepData: true });

    const second = await start(dir.path, clock);
    for (const c of CONNECTIONS) {
      const ref = { providerConfigKey: c.key, connectionId: ids[c.key] as string };
      const headers = { "provider-config-key": c.key, "connection-id": ref.connectionId };
      // The access token issued before the restart still works...
      const before = await second.clients.connection.getCredentials(ref);
      const kept = await second.api("GET", `/proxy${c.read}`, undefined, headers);
      expect([c.key, kept.status]).toEqual([c.key, 200]);
      // ...and so does the refresh token, once it has expired.
      await clock.advance(2 * HOUR);
      const after = await second.clients.connection.getCredentials(ref);
      expect(after.credentials?.accessToken).not.toBe(before.credentials?.accessToken as string);
      const refreshed = await second.api("GET", `/proxy${c.read}`, undefined, headers);
      expect([c.key, refreshed.status]).toEqual([c.key, 200]);
    }
    // Same port, so the test credentials' URLs did not change.
    const again = await second.clients.connection.getCredentials({
      providerConfigKey: "cal",
      connectionId: ids.cal as string,
    });
    expect(again.integration?.overrides?.baseUrl).toBe(sandboxUrl);
  });
});
