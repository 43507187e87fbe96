import { describe, expect, test } from "bun:test";
import { CATALOGUE } from "./catalogue.ts";
import { buildAuthorizationUrl, SCOPE_SEPARATORS } from "./definition/authorization-url.ts";
import { fillPlaceholders, placeholderKeys } from "./definition/placeholders.ts";
import { type ProviderDefinition, parseProviderDefinition } from "./definition/provider-definition.ts";
import { type ProviderAdapter, providerAdapter, providerAdapters } from "./index.ts";

// Every catalogue entry is checked the same way: it validates, its URLs are https and
// parse with every placeholder filled (each placeholder being one the connection can fill), and its
// authorization URL for a sample connection carries what the definition promises.

type Checked = ProviderDefinition & Pick<ProviderAdapter, "integrationSettings">;

/**
 * A sample value for a placeholder: an integration setting's default (a tenant), else a connection's value
 * of its kind (a whole URL where the placeholder starts the URL, else one host label).
 */
function sampleValues(d: Checked, url: string): Record<string, string> {
  const values: Record<string, string> = {};
  for (const key of placeholderKeys(url)) {
    const setting = d.integrationSettings?.find((s) => s.key === key)?.defaultValue;
    values[key] = setting || (url.startsWith(`{${key}}`) ? "https://sample.example.com" : "sample1");
  }
  return values;
}

/** What is wrong with a definition's URLs, placeholders and authorization request; [] when nothing. */
function catalogueProblems(d: Checked): string[] {
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
    const filled = fillPlaceholders(url, sampleValues(d, url));
    if (!filled.ok) return problems.push(`${field}: {${filled.key}} ${filled.problem}`);
    try {
      const parsed = new URL(filled.url);
      if (parsed.protocol !== "https:") problems.push(`${field}: ${url} is not https`);
    } catch {
      problems.push(`${field}: ${url} does not parse`);
    }
  };
  // A placeholder a connection does not give is an integration setting, with a default to fill it.
  const given = new Set([...d.connectFields, ...d.connectionConfig].map((f) => f.key));
  const settingProblem = (url: string) =>
    placeholderKeys(url).filter(
      (k) => !given.has(k) && d.integrationSettings?.some((s) => s.key === k && !s.defaultValue),
    );
  for (const url of [d.baseUrl, d.authorizationUrl, d.tokenUrl, d.refreshUrl])
    for (const key of settingProblem(url)) problems.push(`{${key}}: an integration setting without a default`);
  checkUrl("baseUrl", d.baseUrl);
  checkUrl("docsUrl", d.docsUrl);
  if (d.authorizationUrl) checkUrl("authorizationUrl", d.authorizationUrl);
  if (d.tokenUrl) checkUrl("tokenUrl", d.tokenUrl);
  if (d.refreshUrl) checkUrl("refreshUrl", d.refreshUrl);
  for (const f of d.connectionConfig) {
    if (f.from === "request" && !f.url.startsWith("/")) checkUrl(`connectionConfig.${f.key}`, f.url);
  }
  if (d.identity) {
    if (!d.identity.url.startsWith("/")) checkUrl("identity.url", d.identity.url);
    else if (placeholderKeys(d.identity.url).some((k) => !fillable.has(k)))
      problems.push(`identity.url: ${d.identity.url} has a placeholder nothing fills`);
    checkUrl("identity.docsUrl", d.identity.docsUrl);
    if (d.identity.body !== undefined) {
      try {
        JSON.parse(d.identity.body);
      } catch {
        problems.push("identity.body: not JSON");
      }
    }
  }
  if (d.authMode !== "OAUTH2" && d.authMode !== "OAUTH2_CC" && (d.authorizationUrl || d.tokenUrl))
    problems.push(`${d.authMode}: an OAuth URL where none is used`);
  for (const f of d.connectFields) {
    if (f.docsUrl !== undefined) checkUrl(`connectFields.${f.key}.docsUrl`, f.docsUrl);
    if (f.key === "apiKey" && !f.secret) problems.push("connectFields.apiKey: not masked (secret)");
  }
  // Where the provider classifies its scopes, every scope says how; elsewhere none does.
  const classified = d.scopes.filter((s) => s.sensitivity !== undefined).length;
  if (classified !== 0 && classified !== d.scopes.length) problems.push("scopes: some classified, some not");
  if (d.docsUrl === "") problems.push("docsUrl: missing (every fact needs its source)");
  if (new Set(d.scopes.map((s) => s.name)).size !== d.scopes.length) problems.push("scopes: a name is listed twice");
  if (d.authMode === "OAUTH2") problems.push(...authorizationProblems(d));
  return problems;
}

/** Builds the authorization URL for a sample connection and checks each promised parameter. */
function authorizationProblems(d: Checked): string[] {
  const problems: string[] = [];
  const filled = fillPlaceholders(d.authorizationUrl, sampleValues(d, d.authorizationUrl));
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

describe("the provider catalogue", () => {
  test("every data-only entry validates against the definition schema", () => {
    for (const input of CATALOGUE) expect(() => parseProviderDefinition(input)).not.toThrow();
  });

  test("names are unique, and the catalogue file lists its entries sorted by name", () => {
    const names = providerAdapters().map((a) => a.name);
    expect(new Set(names).size).toBe(names.length);
    const catalogue = CATALOGUE.map((d) => d.name);
    expect(catalogue).toEqual([...catalogue].sort());
  });

  test("every provider names its account identity request, but those whose adapter reads the account's email", () => {
    const without = providerAdapters().filter((a) => !a.identity && !a.readAccountEmail);
    expect(without.map((a) => a.name)).toEqual([]);
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

  test("the checks catch an identity request nothing can fill or send, an unmasked key and half-classified scopes", () => {
    const keyed = parseProviderDefinition({
      name: "keyed-bad",
      displayName: "Keyed",
      authMode: "API_KEY",
      docsUrl: "https://docs.keyed.example/auth",
      baseUrl: "https://api.keyed.example",
      tokenUrl: "https://api.keyed.example/token",
      connectFields: [{ key: "apiKey", label: "Key" }],
      scopes: [
        { name: "a", description: "A", sensitivity: "basic" },
        { name: "b", description: "B" },
      ],
      identity: {
        url: "/accounts/{account}",
        body: "{not json",
        idPath: "id",
        docsUrl: "https://docs.keyed.example/me",
      },
    });
    expect(catalogueProblems(keyed)).toEqual([
      "identity.url: /accounts/{account} has a placeholder nothing fills",
      "identity.body: not JSON",
      "API_KEY: an OAuth URL where none is used",
      "connectFields.apiKey: not masked (secret)",
      "scopes: some classified, some not",
    ]);
    const tenant = { key: "tenant", label: "Tenant", description: "", defaultValue: "" };
    const noDefault = { ...keyed, baseUrl: "https://{tenant}.keyed.example", integrationSettings: [tenant] };
    expect(catalogueProblems(noDefault)).toContain("{tenant}: an integration setting without a default");
  });
});

/** What a provider's documentation says its authorization request is (linked in its definition). */
interface OAuthFacts {
  /** Host and path of the authorization URL, an integration setting at its default (a tenant). */
  at: string;
  scope?: string;
  params?: Record<string, string>;
  pkce: "required" | "optional" | "refused";
  clientAuthentication?: "client_secret_basic";
}
/** What the proxy sends for a provider that is not OAuth, and the fields the connect page asks for. */
interface KeyedFacts {
  mode: "API_KEY" | "BASIC";
  fields: string[];
  placement?: string;
}

// Provider-specific facts, each from the provider's documentation cited in its definition: exact scope
// strings (so separators), PKCE, extra parameters, client authentication, credential placement.
const MS = "login.microsoftonline.com/common/oauth2/v2.0/authorize";
const GOOGLE = { at: "accounts.google.com/o/oauth2/v2/auth", params: { access_type: "offline", prompt: "consent" } };
const FACTS: Record<string, OAuthFacts | KeyedFacts> = {
  box: { at: "account.box.com/api/oauth2/authorize", pkce: "optional", scope: "root_readonly" },
  calendly: {
    at: "auth.calendly.com/oauth/authorize",
    pkce: "optional",
    scope: "scheduled_events:read event_types:read",
    clientAuthentication: "client_secret_basic",
  },
  clickup: { at: "app.clickup.com/api", pkce: "optional" },
  discord: { at: "discord.com/oauth2/authorize", pkce: "optional", scope: "identify" },
  docusign: {
    at: "account.docusign.com/oauth/auth",
    pkce: "optional",
    scope: "signature extended",
    clientAuthentication: "client_secret_basic",
  },
  dropbox: {
    at: "www.dropbox.com/oauth2/authorize",
    params: { token_access_type: "offline" },
    pkce: "optional",
    scope: "account_info.read files.metadata.read",
  },
  figma: {
    at: "www.figma.com/oauth",
    pkce: "refused",
    scope: "current_user:read,file_content:read",
    clientAuthentication: "client_secret_basic",
  },
  "google-drive": { ...GOOGLE, pkce: "optional", scope: "openid email https://www.googleapis.com/auth/drive.file" },
  "google-sheet": {
    ...GOOGLE,
    pkce: "optional",
    scope: "openid email https://www.googleapis.com/auth/spreadsheets.readonly",
  },
  linkedin: { at: "www.linkedin.com/oauth/v2/authorization", pkce: "refused", scope: "openid profile email" },
  mailchimp: { at: "login.mailchimp.com/oauth2/authorize", pkce: "optional" },
  "microsoft-teams": {
    at: MS,
    params: { response_mode: "query" },
    pkce: "optional",
    scope: "offline_access openid email User.Read Team.ReadBasic.All Channel.ReadBasic.All",
  },
  monday: {
    at: "auth.monday.com/oauth2/authorize",
    params: { force_install_if_needed: "true" },
    pkce: "refused",
    scope: "me:read boards:read",
  },
  "one-drive": {
    at: MS,
    params: { response_mode: "query" },
    pkce: "optional",
    scope: "offline_access openid email User.Read Files.Read",
  },
  openai: { mode: "API_KEY", fields: ["apiKey"], placement: "header authorization Bearer " },
  outlook: {
    at: MS,
    params: { response_mode: "query" },
    pkce: "optional",
    scope: "offline_access openid email User.Read Mail.Read",
  },
  sendgrid: { mode: "API_KEY", fields: ["apiKey"], placement: "header authorization Bearer " },
  trello: { mode: "API_KEY", fields: ["apiKey"], placement: "query token " },
  twilio: { mode: "BASIC", fields: ["username", "password"] },
  "twitter-v2": {
    at: "x.com/i/oauth2/authorize",
    pkce: "required",
    scope: "tweet.read users.read offline.access",
    clientAuthentication: "client_secret_basic",
  },
  typeform: {
    at: "api.typeform.com/oauth/authorize",
    pkce: "refused",
    scope: "offline accounts:read forms:read responses:read",
  },
  zoom: {
    at: "zoom.us/oauth/authorize",
    pkce: "optional",
    scope: "user:read:user",
    clientAuthentication: "client_secret_basic",
  },
};

/** The authorization URL the service builds (definition/authorization-url.ts) for the default scopes. */
function sampleAuthorizationUrl(a: ProviderAdapter): URL {
  const filled = fillPlaceholders(a.authorizationUrl, sampleValues(a, a.authorizationUrl));
  if (!filled.ok) throw new Error(`${a.name}: {${filled.key}} ${filled.problem}`);
  return buildAuthorizationUrl(a, {
    authorizationUrl: filled.url,
    clientId: "client-1",
    redirectUri: "https://junction.example.com/oauth/callback",
    scopes: a.defaultScopes,
    state: "state-1",
    codeChallenge: "challenge-1",
  });
}

describe("provider facts from their documentation", () => {
  for (const [name, facts] of Object.entries(FACTS)) {
    test(`${name}: ${"mode" in facts ? "credentials and where they go" : "its authorization request"}`, () => {
      const a = providerAdapter(name);
      if (!a) throw new Error(`${name} is not in the catalogue`);
      if ("mode" in facts) {
        expect(a.authMode).toBe(facts.mode);
        expect(a.connectFields.map((f) => f.key)).toEqual(facts.fields);
        expect(a.apiKey ? `${a.apiKey.in} ${a.apiKey.name} ${a.apiKey.prefix}` : undefined).toBe(facts.placement);
        return;
      }
      expect(a.authMode).toBe("OAUTH2");
      const url = sampleAuthorizationUrl(a);
      expect(`${url.host}${url.pathname}`).toBe(facts.at);
      expect(url.searchParams.get("scope")).toBe(facts.scope ?? null);
      for (const [key, value] of Object.entries(facts.params ?? {})) expect(url.searchParams.get(key)).toBe(value);
      expect(a.pkce).toBe(facts.pkce);
      expect(url.searchParams.get("code_challenge_method")).toBe(facts.pkce === "refused" ? null : "S256");
      expect(a.clientAuthentication).toBe(facts.clientAuthentication ?? "client_secret_post");
    });
  }
});
