import { afterEach, describe, expect, test } from "bun:test";
import { startWebhookKit, type WebhookKit } from "../../testing/webhook-test-kit.ts";
import { IntegrationCache } from "./integration-cache.ts";
import { batchedLookups } from "./notification-lookups.ts";
import { fromConnectError } from "@junction/platform";

let kit: WebhookKit | undefined;
afterEach(async () => {
  await kit?.close();
  kit = undefined;
});

describe("the two integration checks (receipt's and the worker's)", () => {
  test("receipt's names the webhook URL's integration and how it is read; an unknown one is null", async () => {
    kit = await startWebhookKit();
    await kit.connections.createIntegration({ uniqueKey: "cal", provider: "google-calendar" });
    const cache = new IntegrationCache(kit.connections, 0);
    const found = await cache.webhookUrl("cal");
    expect(found?.integration.uniqueKey).toBe("cal");
    expect(typeof found?.read).toBe("function");
    expect(await cache.webhookUrl("nope")).toBeNull();
  });

  test("the worker's sees the integration as it is now: forwarding turned off, then deleted", async () => {
    kit = await startWebhookKit();
    await kit.connections.createIntegration({ uniqueKey: "cal", provider: "google-calendar" });
    // The worker's question is answered by its one match call, as the integration is when it forwards.
    // Only the match is asked here: no channel service.
    const lookups = batchedLookups(kit.connections, {} as never);
    const match = () => lookups.match({ providerConfigKey: "cal", resourceUri: "urn:none" });
    expect(await match()).toMatchObject({ provider: "google-calendar", forwardWebhooks: true });
    await kit.connections.updateIntegration({ uniqueKey: "cal", forwardWebhooks: false });
    expect(await match()).toMatchObject({ forwardWebhooks: false });
    await kit.connections.deleteIntegration({ uniqueKey: "cal", force: true });
    expect(await match().catch((e: unknown) => fromConnectError(e))).toMatchObject({ code: "unknown_provider_config" });
  });
});
