import { describe, expect, test } from "bun:test";
import { CLIENT, useOAuthHarness } from "../../testing/oauth-test-kit.ts";

describe("integrations: strict_channels", () => {
  const harness = useOAuthHarness();

  test("follows managed_channels until the operator sets it", async () => {
    const h = await harness.start();
    const created = await h.client.createIntegration({
      uniqueKey: "cal",
      provider: "google-calendar",
      clientId: CLIENT.clientId,
      managedChannels: true,
    });
    expect(created.integration?.strictChannels).toBe(true);
    await h.client.updateIntegration({ uniqueKey: "cal", managedChannels: false });
    expect((await h.client.getIntegration({ uniqueKey: "cal" })).integration?.strictChannels).toBe(false);
  });

  test("once set, is kept whatever managed_channels becomes", async () => {
    const h = await harness.start();
    await h.client.createIntegration({
      uniqueKey: "cal",
      provider: "google-calendar",
      clientId: CLIENT.clientId,
      strictChannels: true,
    });
    expect((await h.client.getIntegration({ uniqueKey: "cal" })).integration).toMatchObject({
      managedChannels: false,
      strictChannels: true,
    });
    await h.client.updateIntegration({ uniqueKey: "cal", managedChannels: true, strictChannels: false });
    await h.client.updateIntegration({ uniqueKey: "cal", displayName: "Renamed" });
    expect((await h.client.getIntegration({ uniqueKey: "cal" })).integration).toMatchObject({
      managedChannels: true,
      strictChannels: false,
    });
  });
});
