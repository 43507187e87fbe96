import { describe, expect, test } from "bun:test";
import { adapterFromDefinition } from "@junction/providers";
import type { ConnectionServiceContext } from "../context.ts";
import type { IntegrationRecord } from "../store/records.ts";
import { resolveOAuthClient } from "./oauth-client.ts";

// Where a refresh token is spent (Figma's separate refresh endpoint): the definition's refreshUrl,
// its placeholders filled as the token URL's, unless a token URL override points at another server.

const template = (refreshUrl: string) =>
  adapterFromDefinition({
    name: "acme-refresh",
    displayName: "Acme",
    authMode: "OAUTH2",
    baseUrl: "https://api.acme.test",
    authorizationUrl: "https://acme.test/oauth/authorize",
    tokenUrl: "https://{region}.acme.test/oauth/token",
    refreshUrl,
  });

const ctx = {
  oauth: {
    testCredentials: {
      "acme-refresh": { clientId: "test-id", clientSecret: "test-secret", tokenUrl: "http://127.0.0.1:9/token" },
    },
  },
  encryptor: { decrypt: (sealed: string) => `plain:${sealed}` },
} as unknown as ConnectionServiceContext;

const integration = (tokenUrl?: string) =>
  ({
    uniqueKey: "acme",
    provider: "acme-refresh",
    clientId: "client-1",
    clientSecretEnc: "sealed",
    providerSettings: { region: "eu" },
    overrides: tokenUrl ? { tokenUrl } : {},
  }) as unknown as IntegrationRecord;

describe("the refresh URL an OAuth client spends refresh tokens at", () => {
  test("the definition's refresh URL, filled like the token URL; without one, the token URL", () => {
    const figmaLike = resolveOAuthClient(
      ctx,
      integration(),
      template("https://{region}.acme.test/oauth/refresh"),
      false,
    );
    expect(figmaLike.tokenUrl).toBe("https://eu.acme.test/oauth/token");
    expect(figmaLike.refreshUrl).toBe("https://eu.acme.test/oauth/refresh");
    const plain = resolveOAuthClient(ctx, integration(), template(""), false);
    expect(plain.refreshUrl).toBe("https://eu.acme.test/oauth/token");
  });

  test("an operator's or the test client's token URL override replaces the refresh URL too", () => {
    const refreshing = template("https://{region}.acme.test/oauth/refresh");
    const overridden = resolveOAuthClient(ctx, integration("https://proxy.example/token"), refreshing, false);
    expect(overridden.refreshUrl).toBe("https://proxy.example/token");
    const testClient = resolveOAuthClient(ctx, integration(), refreshing, true);
    expect(testClient.refreshUrl).toBe("http://127.0.0.1:9/token");
    expect(testClient.clientId).toBe("test-id");
  });
});
