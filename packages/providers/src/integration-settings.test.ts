import { describe, expect, test } from "bun:test";
import type { ProviderAdapter } from "./adapter.ts";
import { providerAdapters } from "./index.ts";
import { integrationSettingsProblems } from "./integration-settings.ts";

const withSettings = providerAdapters().find((a) => (a.integrationSettings ?? []).length > 0) as ProviderAdapter;
const manageable = providerAdapters().find((a) => a.channels?.create) as ProviderAdapter;

describe("integrationSettingsProblems", () => {
  test("accepts the keys the adapter declares, and managed channels when it can create channels", () => {
    const settings = Object.fromEntries((withSettings.integrationSettings ?? []).map((s) => [s.key, "x"]));
    expect(integrationSettingsProblems(withSettings, { settings })).toEqual([]);
    expect(integrationSettingsProblems(manageable, { managedChannels: true })).toEqual([]);
    expect(integrationSettingsProblems(undefined, { settings: {}, managedChannels: false })).toEqual([]);
  });

  test("names an unknown key and the keys the provider takes", () => {
    const problems = integrationSettingsProblems(withSettings, { settings: { colour: "red" } });
    const keys = (withSettings.integrationSettings ?? []).map((s) => s.key);
    expect(problems).toEqual([
      {
        code: "unknown_provider_setting",
        path: "provider_settings.colour",
        message: `is not a setting of ${withSettings.name}; it takes ${keys.join(", ")}`,
      },
    ]);
  });

  test("a provider with no settings takes none", () => {
    const bare = { ...withSettings, integrationSettings: undefined };
    expect(integrationSettingsProblems(bare, { settings: { a: "1" } })[0]?.message).toEndWith("it takes none");
  });

  test("refuses managed channels when the channel adapter cannot create, naming the channel kind", () => {
    const channels = manageable.channels;
    if (!channels) throw new Error("no manageable adapter");
    const scripted: ProviderAdapter = { ...manageable, channels: { ...channels, create: undefined } };
    const [problem] = integrationSettingsProblems(scripted, { managedChannels: true });
    expect(problem).toMatchObject({ code: "managed_channels_unsupported", path: "managed_channels" });
    expect(problem?.message).toContain(`${channels.label}s`);
    expect(integrationSettingsProblems(scripted, { managedChannels: false })).toEqual([]);
    const none: ProviderAdapter = { ...manageable, channels: undefined };
    expect(integrationSettingsProblems(none, { managedChannels: true })[0]?.message).toContain(
      "has no notification channels",
    );
  });
});
