import { describe, expect, test } from "bun:test";
import type { JsonObject } from "@bufbuild/protobuf";
import { fromConnectError } from "@junction/platform";
import { type ProviderAdapter, providerAdapter } from "@junction/providers";
import { createIntegrationOf, useOAuthHarness } from "../../testing/oauth-test-kit.ts";
import { ProviderCatalog } from "../providers/catalog.ts";

const PROVIDER = "microsoft-outlook-calendar";
const adapter = providerAdapter(PROVIDER) as ProviderAdapter;

describe("an integration's provider settings and managed channels", () => {
  const harness = useOAuthHarness();
  type Started = Awaited<ReturnType<typeof harness.start>>;
  const create = (h: Started, over: Record<string, unknown> = {}) => createIntegrationOf(h, "outlook", PROVIDER, over);
  const authorizationPath = async (h: Started) => {
    const { token } = await h.client.createConnectSession({
      endUser: { id: "user-1" } as JsonObject,
      allowedIntegrations: ["outlook"],
    });
    const started = await h.client.startAuthorization({ providerConfigKey: "outlook", connectSessionToken: token });
    return new URL(started.authorizationUrl).pathname;
  };

  test("are stored and read back; the stored tenant fills the authorization URL, and an update replaces it", async () => {
    const h = await harness.start();
    await create(h, { providerSettings: { tenant: "contoso.onmicrosoft.com" }, managedChannels: true });
    const got = (await h.client.getIntegration({ uniqueKey: "outlook" })).integration;
    expect(got).toMatchObject({ providerSettings: { tenant: "contoso.onmicrosoft.com" }, managedChannels: true });
    expect(await authorizationPath(h)).toStartWith("/contoso.onmicrosoft.com/");

    const updated = await h.client.updateIntegration({
      uniqueKey: "outlook",
      providerSettings: { values: { tenant: "" } },
      managedChannels: false,
    });
    // An empty value is the default: not stored.
    expect(updated.integration).toMatchObject({ providerSettings: {}, managedChannels: false });
    expect(await authorizationPath(h)).toStartWith("/common/");
    const untouched = await h.client.updateIntegration({ uniqueKey: "outlook", displayName: "Outlook" });
    expect(untouched.integration).toMatchObject({ providerSettings: {}, managedChannels: false });
  });

  test("the service refuses a key the provider does not take, and a value over the bound, for any caller", async () => {
    const h = await harness.start();
    const unknown = await create(h, { providerSettings: { region: "eu" } }).catch(fromConnectError);
    expect(unknown).toMatchObject({
      code: "unknown_provider_setting",
      errors: [
        {
          path: "provider_settings.region",
          message: "is not a setting of microsoft-outlook-calendar; it takes tenant",
        },
      ],
    });
    await create(h);
    const long = await h.client
      .updateIntegration({ uniqueKey: "outlook", providerSettings: { values: { tenant: "a".repeat(2049) } } })
      .catch(fromConnectError);
    expect(long).toMatchObject({ code: "invalid_request", errors: [{ path: "provider_settings.tenant" }] });
  });

  test("managed channels are refused for a provider whose channel adapter cannot create channels", async () => {
    const channels = adapter.channels;
    if (!channels) throw new Error(`${PROVIDER} has channels`);
    const scripted: ProviderAdapter = { ...adapter, channels: { ...channels, create: undefined } };
    const h = await harness.start({ providers: new ProviderCatalog([scripted]) });
    const refused = await create(h, { managedChannels: true }).catch(fromConnectError);
    expect(refused).toMatchObject({ code: "managed_channels_unsupported", errors: [{ path: "managed_channels" }] });
    await create(h);
    const update = await h.client
      .updateIntegration({ uniqueKey: "outlook", managedChannels: true })
      .catch(fromConnectError);
    expect(update).toMatchObject({ code: "managed_channels_unsupported" });
    expect((await h.client.getIntegration({ uniqueKey: "outlook" })).integration?.managedChannels).toBe(false);
  });
});
