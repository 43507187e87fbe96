import { describe, expect, test } from "bun:test";
import { adapterFromDefinition } from "@junction/providers";
import type { ConnectionServiceContext } from "../context.ts";
import type { IntegrationRecord } from "../store/records.ts";
import { readConnectionConfigFields } from "./connection-config-fields.ts";
import type { TokenSet } from "./token-answer.ts";

const template = adapterFromDefinition({
  name: "sites",
  displayName: "Sites",
  authMode: "OAUTH2",
  docsUrl: "https://docs.sites.test/oauth",
  baseUrl: "https://api.sites.test",
  authorizationUrl: "https://sites.test/authorize",
  tokenUrl: "https://sites.test/token",
  connectionConfig: [
    { key: "realmId", from: "callback", param: "realmId" },
    { key: "cloudId", from: "request", url: "https://api.sites.test/accessible-resources", path: "0.id" },
  ],
});
const integ = { uniqueKey: "sites", providerSettings: {} } as unknown as IntegrationRecord;
const token = { accessToken: "at-1", raw: {} } as unknown as TokenSet;

function ctxAnswering(body: unknown): ConnectionServiceContext {
  return {
    fetch: async () => Response.json(body),
    oauth: { tokenRequestTimeoutMs: 1000 },
  } as unknown as ConnectionServiceContext;
}

describe("connection-config fields read at authorization", () => {
  test("from the callback's query, and from an array answer by index (Atlassian's accessible resources)", async () => {
    const ctx = ctxAnswering([{ id: "cloud-1" }, { id: "cloud-2" }]);
    const read = await readConnectionConfigFields(ctx, integ, template, token, template.baseUrl, {}, { realmId: "42" });
    expect(read).toEqual({ ok: true, values: { realmId: "42", cloudId: "cloud-1" } });
  });

  test("a callback without the parameter, or an empty array, fails naming the field and the provider", async () => {
    const missing = await readConnectionConfigFields(
      ctxAnswering([]),
      integ,
      template,
      token,
      template.baseUrl,
      {},
      {},
    );
    expect(missing.ok).toBe(false);
    if (!missing.ok) {
      expect(missing.message).toContain('Provider "sites" definition\'s connection_config.realmId could not be read');
      expect(missing.message).toContain('the authorization callback has no "realmId" parameter');
    }
    const empty = await readConnectionConfigFields(
      ctxAnswering([]),
      integ,
      template,
      token,
      template.baseUrl,
      {},
      {
        realmId: "42",
      },
    );
    expect(empty.ok).toBe(false);
    if (!empty.ok) expect(empty.message).toContain('answered without "0.id"');
  });
});
