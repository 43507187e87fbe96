import { describe, expect, test } from "bun:test";
import { CLIENT, useOAuthHarness } from "../../testing/oauth-test-kit.ts";

describe("integrations: managed_channels and provider_settings", () => {
  const harness = useOAuthHarness();

  test("are kept on create and update, and read back", async () => {
    const h = await harness.start();
    const created = await h.client.createIntegration({
      uniqueKey: "mail",
      provider: "google-mail",
      clientId: CLIENT.clientId,
      providerSettings: { pubsub_topic: "projects/p/topics/t" },
      managedChannels: true,
    });
    expect(created.integration).toMatchObject({
      managedChannels: true,
      providerSettings: { pubsub_topic: "projects/p/topics/t" },
    });
    await h.client.updateIntegration({ uniqueKey: "mail", managedChannels: false });
    const { integration } = await h.client.getIntegration({ uniqueKey: "mail" });
    expect(integration).toMatchObject({
      managedChannels: false,
      providerSettings: { pubsub_topic: "projects/p/topics/t" },
    });
    await h.client.updateIntegration({ uniqueKey: "mail", providerSettings: { values: {} } });
    expect((await h.client.getIntegration({ uniqueKey: "mail" })).integration?.providerSettings).toEqual({});
  });

  test("off by default: the scripts model stays the spec's", async () => {
    const h = await harness.start();
    await h.integration("cal");
    expect((await h.client.getIntegration({ uniqueKey: "cal" })).integration?.managedChannels).toBe(false);
  });
});
