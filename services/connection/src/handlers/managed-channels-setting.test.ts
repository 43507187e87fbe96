import { describe, expect, test } from "bun:test";
import { fromConnectError, type JunctionError } from "@junction/platform";
import { type ProviderAdapter, providerAdapter } from "@junction/providers";
import { CLIENT, useOAuthHarness } from "../oauth/oauth-test-kit.ts";
import { checkManagedChannels } from "./integrations.ts";

const calendar = providerAdapter("google-calendar") as ProviderAdapter;

describe("integrations: managed_channels and provider_settings (issue 22, item 4)", () => {
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

  test("are refused with managed_channels_unsupported for a provider that cannot create channels", () => {
    const noCreate = { ...calendar, channels: { ...calendar.channels, create: undefined } } as ProviderAdapter;
    let err: JunctionError | undefined;
    try {
      checkManagedChannels(noCreate, true);
    } catch (e) {
      err = fromConnectError(e);
    }
    expect(err).toMatchObject({ code: "managed_channels_unsupported", errors: [{ path: "managed_channels" }] });
    expect(() => checkManagedChannels(noCreate, false)).not.toThrow();
    expect(() => checkManagedChannels(calendar, true)).not.toThrow();
  });
});
