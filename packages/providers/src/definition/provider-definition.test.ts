import { describe, expect, test } from "bun:test";
import { providerAdapters } from "../index.ts";
import { fillPlaceholders, placeholderKeys } from "./placeholders.ts";
import { parseProviderDefinition, ProviderDefinitionError, providerDefinitionSchema } from "./provider-definition.ts";

const minimal = {
  name: "acme",
  displayName: "Acme",
  authMode: "OAUTH2",
  baseUrl: "https://api.acme.test",
  authorizationUrl: "https://{subdomain}.acme.test/oauth/authorize",
  tokenUrl: "https://{subdomain}.acme.test/oauth/token",
};

function refusal(input: unknown): ProviderDefinitionError {
  try {
    parseProviderDefinition(input);
  } catch (err) {
    if (err instanceof ProviderDefinitionError) return err;
    throw err;
  }
  throw new Error("the definition was accepted");
}

describe("provider definitions", () => {
  test("a minimal OAuth definition gets the defaults of the common flow", () => {
    const d = parseProviderDefinition(minimal);
    expect(d).toMatchObject({
      scopeSeparator: "space",
      clientAuthentication: "client_secret_post",
      pkce: "optional",
      refreshNeedsScopes: false,
      tokenResponse: { format: "json", root: "", tokenTypes: ["bearer"] },
      connectionConfig: [],
      connectFields: [],
      webhookHeaders: null,
      storesEmailHash: false,
    });
  });

  test("every built-in adapter's definition validates", () => {
    const keys = Object.keys(providerDefinitionSchema.shape);
    for (const adapter of providerAdapters()) {
      const data = Object.fromEntries(Object.entries(adapter).filter(([k]) => keys.includes(k)));
      expect(parseProviderDefinition(data)).toEqual(data as never);
    }
  });

  test("a missing URL is refused naming the provider and the field", () => {
    const { tokenUrl: _t, ...noToken } = minimal;
    const err = refusal(noToken);
    expect(err.provider).toBe("acme");
    expect(err.issues).toEqual([{ path: "tokenUrl", message: "is required for OAUTH2" }]);
    expect(err.message).toContain('Provider definition "acme" is invalid: tokenUrl is required for OAUTH2');
  });

  test("an unknown auth mode is refused with the modes there are", () => {
    const err = refusal({ ...minimal, authMode: "OAUTH1" });
    expect(err.issues[0]?.path).toBe("authMode");
    expect(err.issues[0]?.message).toContain("OAUTH2, OAUTH2_CC, API_KEY, BASIC");
  });

  test("URLs must be http(s), placeholders included; API_KEY and BASIC need no OAuth URL", () => {
    expect(refusal({ ...minimal, baseUrl: "ftp://acme.test" }).issues[0]?.path).toBe("baseUrl");
    expect(refusal({ ...minimal, baseUrl: "not a url" }).issues[0]?.path).toBe("baseUrl");
    const apiKey = parseProviderDefinition({
      name: "keyed",
      displayName: "Keyed",
      authMode: "API_KEY",
      baseUrl: "{instance_url}/api",
      apiKey: { name: "x-api-key" },
    });
    expect(apiKey.apiKey).toEqual({ in: "header", name: "x-api-key", prefix: "" });
    expect(() =>
      parseProviderDefinition({ name: "basic", displayName: "B", authMode: "BASIC", baseUrl: "https://b.test" }),
    ).not.toThrow();
  });

  test("a refresh URL is an http(s) URL, for OAUTH2 only; left out, refreshes go to the token URL", () => {
    expect(parseProviderDefinition(minimal).refreshUrl).toBe("");
    const figmaLike = parseProviderDefinition({
      ...minimal,
      refreshUrl: "https://{subdomain}.acme.test/oauth/refresh",
    });
    expect(figmaLike.refreshUrl).toBe("https://{subdomain}.acme.test/oauth/refresh");
    expect(refusal({ ...minimal, refreshUrl: "ftp://acme.test/refresh" }).issues[0]?.path).toBe("refreshUrl");
    const keyed = { name: "k", displayName: "K", authMode: "API_KEY", baseUrl: "https://k.test" };
    expect(refusal({ ...keyed, refreshUrl: "https://k.test/refresh" }).issues).toEqual([
      { path: "refreshUrl", message: "is only for OAUTH2 (not API_KEY)" },
    ]);
  });

  test("an unknown field (a typo) is refused, naming it", () => {
    const err = refusal({ ...minimal, tokenurl: "https://x.test/token" });
    expect(err.issues[0]?.message).toContain("tokenurl");
    expect(refusal({ ...minimal, tokenResponse: { fromat: "form" } }).issues[0]?.path).toBe("tokenResponse");
  });

  test("default scopes must be listed scopes when the definition lists any", () => {
    const err = refusal({
      ...minimal,
      scopes: [{ name: "read", description: "Read", sensitivity: "basic" }],
      defaultScopes: ["read", "write"],
    });
    expect(err.issues).toEqual([{ path: "defaultScopes.1", message: '"write" is not in scopes' }]);
  });
});

describe("URL placeholders", () => {
  test("fill host labels and path segments, and a whole base URL at the start", () => {
    expect(fillPlaceholders(minimal.tokenUrl, { subdomain: "team1" })).toEqual({
      ok: true,
      url: "https://team1.acme.test/oauth/token",
    });
    expect(fillPlaceholders("{instance_url}/services/data", { instance_url: "https://na1.acme.test/" })).toEqual({
      ok: true,
      url: "https://na1.acme.test/services/data",
    });
    expect(placeholderKeys("https://{shop}.x.test/{shop}/{tenant}")).toEqual(["shop", "tenant"]);
  });

  test("refuse what is missing or would move the URL elsewhere", () => {
    expect(fillPlaceholders(minimal.tokenUrl, {})).toEqual({ ok: false, key: "subdomain", problem: "missing" });
    expect(fillPlaceholders(minimal.tokenUrl, { subdomain: "evil.test/x" })).toMatchObject({
      problem: "not_a_segment",
    });
    expect(fillPlaceholders("https://a.test/{tenant}", { tenant: ".." })).toMatchObject({ problem: "not_a_segment" });
    expect(fillPlaceholders("{instance_url}/x", { instance_url: "javascript:alert(1)" })).toMatchObject({
      problem: "not_a_url",
    });
    expect(fillPlaceholders("{instance_url}/x", { instance_url: "https://a.test?x=1" })).toMatchObject({
      problem: "not_a_url",
    });
    expect(fillPlaceholders("https://a.test/{bad-key}", {})).toMatchObject({ problem: "malformed" });
  });
});
