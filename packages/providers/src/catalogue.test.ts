import { describe, expect, test } from "bun:test";
import { CATALOGUE } from "./catalogue.ts";
import { buildAuthorizationUrl, SCOPE_SEPARATORS } from "./definition/authorization-url.ts";
import { fillPlaceholders, placeholderKeys } from "./definition/placeholders.ts";
import { type ProviderDefinition, parseProviderDefinition } from "./definition/provider-definition.ts";
import { type ProviderAdapter, providerAdapters } from "./index.ts";

// Issue 23, item 5: every catalogue entry is checked the same way: it validates, its URLs are https and
// parse with every placeholder filled (each placeholder being one the connection can fill), and its
// authorization URL for a sample connection carries what the definition promises.

/** A sample value for a placeholder: a whole URL where it starts the URL, else one host label. */
function sampleValues(url: string): Record<string, string> {
  const values: Record<string, string> = {};
  for (const key of placeholderKeys(url))
    values[key] = url.startsWith(`{${key}}`) ? "https://sample.example.com" : "sample1";
  return values;
}

/** What is wrong with a definition's URLs, placeholders and authorization request; [] when nothing. */
function catalogueProblems(d: ProviderDefinition & Pick<ProviderAdapter, "integrationSettings">): string[] {
  const problems: string[] = [];
  // What fills a placeholder: the connect page's fields, fields read at authorization, the integration's settings.
  const fillable = new Set([
    ...d.connectFields.map((f) => f.key),
    ...d.connectionConfig.map((f) => f.key),
    ...(d.integrationSettings ?? []).map((s) => s.key),
  ]);
  const checkUrl = (field: string, url: string) => {
    for (const key of placeholderKeys(url)) {
      if (!fillable.has(key))
        problems.push(`${field}: {${key}} is not a connect field, connection-config field or setting`);
    }
    const filled = fillPlaceholders(url, sampleValues(url));
    if (!filled.ok) return problems.push(`${field}: {${filled.key}} ${filled.problem}`);
    try {
      const parsed = new URL(filled.url);
      if (parsed.protocol !== "https:") problems.push(`${field}: ${url} is not https`);
    } catch {
      problems.push(`${field}: ${url} does not parse`);
    }
  };
  checkUrl("baseUrl", d.baseUrl);
  checkUrl("docsUrl", d.docsUrl);
  if (d.authorizationUrl) checkUrl("authorizationUrl", d.authorizationUrl);
  if (d.tokenUrl) checkUrl("tokenUrl", d.tokenUrl);
  for (const f of d.connectionConfig) {
    if (f.from === "request" && !f.url.startsWith("/")) checkUrl(`connectionConfig.${f.key}`, f.url);
  }
  if (d.identity && !d.identity.url.startsWith("/")) checkUrl("identity.url", d.identity.url);
  if (d.identity) checkUrl("identity.docsUrl", d.identity.docsUrl);
  if (d.docsUrl === "") problems.push("docsUrl: missing (every fact needs its source)");
  if (new Set(d.scopes.map((s) => s.name)).size !== d.scopes.length) problems.push("scopes: a name is listed twice");
  if (d.authMode === "OAUTH2") problems.push(...authorizationProblems(d));
  return problems;
}

/** Builds the authorization URL for a sample connection and checks each promised parameter. */
function authorizationProblems(d: ProviderDefinition): string[] {
  const problems: string[] = [];
  const filled = fillPlaceholders(d.authorizationUrl, sampleValues(d.authorizationUrl));
  if (!filled.ok) return [`authorizationUrl: {${filled.key}} ${filled.problem}`];
  const url = buildAuthorizationUrl(d, {
    authorizationUrl: filled.url,
    clientId: "client-1",
    redirectUri: "https://junction.example.com/oauth/callback",
    scopes: d.defaultScopes,
    state: "state-1",
    codeChallenge: "challenge-1",
  });
  const q = url.searchParams;
  const want = (name: string, value: string | null) => {
    if (q.get(name) !== value) problems.push(`authorization URL: ${name} is ${q.get(name)}, want ${value}`);
  };
  want("client_id", "client-1");
  want("redirect_uri", "https://junction.example.com/oauth/callback");
  want("response_type", "code");
  want("state", "state-1");
  want(d.scopeParameter, d.defaultScopes.length > 0 ? d.defaultScopes.join(SCOPE_SEPARATORS[d.scopeSeparator]) : null);
  want("code_challenge", d.pkce === "refused" ? null : "challenge-1");
  want("code_challenge_method", d.pkce === "refused" ? null : "S256");
  for (const [name, value] of Object.entries(d.authorizationParams)) want(name, value);
  if (url.protocol !== "https:") problems.push("authorization URL: not https");
  return problems;
}

describe("the provider catalogue (issue 23, item 5)", () => {
  test("every data-only entry validates against the definition schema", () => {
    for (const input of CATALOGUE) expect(() => parseProviderDefinition(input)).not.toThrow();
  });

  test("names are unique, and the catalogue file lists its entries sorted by name", () => {
    const names = providerAdapters().map((a) => a.name);
    expect(new Set(names).size).toBe(names.length);
    const catalogue = CATALOGUE.map((d) => d.name);
    expect(catalogue).toEqual([...catalogue].sort());
  });

  for (const adapter of providerAdapters()) {
    test(`${adapter.name}: https URLs with every placeholder fillable, and a complete authorization request`, () => {
      expect(catalogueProblems(adapter)).toEqual([]);
    });
  }

  test("the checks catch an http URL, a placeholder nothing fills, and a promise the URL does not keep", () => {
    const bad = parseProviderDefinition({
      name: "bad-one",
      displayName: "Bad",
      authMode: "OAUTH2",
      docsUrl: "https://docs.bad.example/oauth",
      baseUrl: "http://api.bad.example",
      authorizationUrl: "https://{tenant}.bad.example/authorize",
      tokenUrl: "https://bad.example/token",
      authorizationParams: { prompt: "consent" },
    });
    const problems = catalogueProblems(bad);
    expect(problems).toContain("baseUrl: http://api.bad.example is not https");
    expect(problems).toContain("authorizationUrl: {tenant} is not a connect field, connection-config field or setting");
    const fixed = { ...bad, baseUrl: "https://api.bad.example", authorizationUrl: "https://bad.example/authorize" };
    expect(catalogueProblems(fixed)).toEqual([]);
  });
});
