import { describe, expect, test } from "bun:test";
import type { ProviderAdapter } from "./adapter.ts";
import { fillPlaceholders, placeholderKeys } from "./definition/placeholders.ts";
import { parseProviderDefinition, providerDefinitionSchema } from "./definition/provider-definition.ts";
import { providerAdapter } from "./index.ts";

// Issue 23, item 5, for the second half of the catalogue (item 3): each definition validates, its URLs are
// https and parse with every placeholder filled, and its authorization URL carries what it promises.

/** What each provider's documentation says its authorization URL must carry (linked in its definition). */
const PROMISES: Record<string, { host: string; params?: Record<string, string>; pkce: boolean; scope?: string }> = {
  box: { host: "account.box.com", pkce: true, scope: "root_readonly" },
  calendly: { host: "auth.calendly.com", pkce: true, scope: "scheduled_events:read event_types:read" },
  clickup: { host: "app.clickup.com", pkce: true },
  discord: { host: "discord.com", pkce: true, scope: "identify" },
  docusign: { host: "account.docusign.com", pkce: true, scope: "signature extended" },
  dropbox: {
    host: "www.dropbox.com",
    params: { token_access_type: "offline" },
    pkce: true,
    scope: "account_info.read files.metadata.read",
  },
  figma: { host: "www.figma.com", pkce: false, scope: "current_user:read,file_content:read" },
  "google-drive": {
    host: "accounts.google.com",
    params: { access_type: "offline", prompt: "consent" },
    pkce: true,
    scope: "openid email https://www.googleapis.com/auth/drive.file",
  },
  "google-sheet": {
    host: "accounts.google.com",
    params: { access_type: "offline", prompt: "consent" },
    pkce: true,
    scope: "openid email https://www.googleapis.com/auth/spreadsheets.readonly",
  },
  linkedin: { host: "www.linkedin.com", pkce: false, scope: "openid profile email" },
  mailchimp: { host: "login.mailchimp.com", pkce: true },
  "microsoft-teams": {
    host: "login.microsoftonline.com",
    params: { response_mode: "query" },
    pkce: true,
    scope: "offline_access openid email User.Read Team.ReadBasic.All Channel.ReadBasic.All",
  },
  monday: {
    host: "auth.monday.com",
    params: { force_install_if_needed: "true" },
    pkce: false,
    scope: "me:read boards:read",
  },
  "one-drive": {
    host: "login.microsoftonline.com",
    params: { response_mode: "query" },
    pkce: true,
    scope: "offline_access openid email User.Read Files.Read",
  },
  outlook: {
    host: "login.microsoftonline.com",
    params: { response_mode: "query" },
    pkce: true,
    scope: "offline_access openid email User.Read Mail.Read",
  },
  "twitter-v2": { host: "x.com", pkce: true, scope: "tweet.read users.read offline.access" },
  typeform: { host: "api.typeform.com", pkce: false, scope: "offline accounts:read forms:read responses:read" },
  zoom: { host: "zoom.us", pkce: true, scope: "user:read:user" },
};

/** The providers that are not OAuth: what the proxy sends, and the fields the connect page asks for. */
const KEYED: Record<string, { mode: "API_KEY" | "BASIC"; fields: string[]; placement?: string }> = {
  openai: { mode: "API_KEY", fields: ["apiKey"], placement: "header authorization Bearer " },
  sendgrid: { mode: "API_KEY", fields: ["apiKey"], placement: "header authorization Bearer " },
  trello: { mode: "API_KEY", fields: ["apiKey"], placement: "query token " },
  twilio: { mode: "BASIC", fields: ["username", "password"] },
};

const NAMES = [...Object.keys(PROMISES), ...Object.keys(KEYED)].sort();

function adapterNamed(name: string): ProviderAdapter {
  const adapter = providerAdapter(name);
  if (!adapter) throw new Error(`${name} is not in the catalogue`);
  return adapter;
}

/**
 * A sample value for each placeholder: an integration setting's default (a tenant), else a connection's
 * value of its kind (a whole URL where the placeholder starts the URL, else one segment).
 */
function sampleValues(adapter: ProviderAdapter, url: string): Record<string, string> {
  const values: Record<string, string> = {};
  for (const key of placeholderKeys(url)) {
    const setting = adapter.integrationSettings?.find((s) => s.key === key);
    values[key] = setting?.defaultValue || (url.startsWith(`{${key}}`) ? "https://sample.example.com" : "us6");
  }
  return values;
}

function filled(adapter: ProviderAdapter, url: string): URL {
  const result = fillPlaceholders(url, sampleValues(adapter, url));
  if (!result.ok) throw new Error(`${adapter.name}: ${url} did not fill (${result.problem} ${result.key})`);
  return new URL(result.url);
}

/**
 * The authorization URL as services/connection/src/oauth/authorization-start.ts builds it for an integration
 * asking for the default scopes: the definition's parameters, then the protocol's, the scopes joined by the
 * separator, and an S256 challenge unless the provider refuses PKCE. A provider without scopes gets no
 * `scope` parameter (the service refuses an integration without scopes today: see the report).
 */
function authorizationUrl(adapter: ProviderAdapter): URL {
  const url = filled(adapter, adapter.authorizationUrl);
  for (const [name, value] of Object.entries(adapter.authorizationParams)) url.searchParams.set(name, value);
  url.searchParams.set("response_type", "code");
  url.searchParams.set("client_id", "client-1");
  url.searchParams.set("redirect_uri", "https://junction.example.com/oauth/callback");
  const separator = { space: " ", comma: ",", plus: "+" }[adapter.scopeSeparator];
  if (adapter.defaultScopes.length > 0) url.searchParams.set("scope", adapter.defaultScopes.join(separator));
  url.searchParams.set("state", "state-1");
  if (adapter.pkce !== "refused") {
    url.searchParams.set("code_challenge", "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM");
    url.searchParams.set("code_challenge_method", "S256");
  }
  return url;
}

describe("catalogue, second half (issue 23, items 3 and 5)", () => {
  test.each(NAMES)("%s: its definition validates and keeps every field it declares", (name) => {
    const adapter = adapterNamed(name);
    const keys = Object.keys(providerDefinitionSchema.shape);
    const data = Object.fromEntries(Object.entries(adapter).filter(([k]) => keys.includes(k)));
    expect(parseProviderDefinition(data)).toEqual(data as never);
    expect(adapter.docsUrl).toStartWith("https://");
    expect(adapter.displayName.length).toBeGreaterThan(0);
  });

  test.each(NAMES)("%s: its URLs are https and parse with every placeholder filled", (name) => {
    const adapter = adapterNamed(name);
    const urls = [adapter.baseUrl, adapter.authorizationUrl, adapter.tokenUrl].filter((u) => u !== "");
    for (const field of adapter.connectionConfig) {
      if (field.from === "request" && !field.url.startsWith("/")) urls.push(field.url);
    }
    for (const url of urls) {
      const parsed = filled(adapter, url);
      expect(parsed.protocol).toBe("https:");
      expect(parsed.href).not.toMatch(/[{}]|%7B|%7D/i);
    }
    // A placeholder a connection does not give is an integration setting, with a default to fill it.
    const given = new Set([...adapter.connectFields, ...adapter.connectionConfig].map((f) => f.key));
    for (const key of urls.flatMap(placeholderKeys).filter((k) => !given.has(k))) {
      expect(adapter.integrationSettings?.find((s) => s.key === key)?.defaultValue).toBeTruthy();
    }
  });

  test.each(Object.keys(PROMISES))("%s: its authorization URL carries the promised parameters", (name) => {
    const adapter = adapterNamed(name);
    const promise = PROMISES[name] as (typeof PROMISES)[string];
    expect(adapter.authMode).toBe("OAUTH2");
    const url = authorizationUrl(adapter);
    expect(url.protocol).toBe("https:");
    expect(url.host).toBe(promise.host);
    expect(url.href).not.toMatch(/%7B|%7D/i);
    for (const [key, value] of Object.entries(promise.params ?? {})) expect(url.searchParams.get(key)).toBe(value);
    expect(url.searchParams.get("response_type")).toBe("code");
    expect(url.searchParams.get("client_id")).toBe("client-1");
    expect(url.searchParams.get("redirect_uri")).toBe("https://junction.example.com/oauth/callback");
    expect(url.searchParams.get("scope")).toBe(promise.scope ?? null);
    expect(url.searchParams.get("code_challenge_method")).toBe(promise.pkce ? "S256" : null);
    // Every default scope is one the definition lists, with a sensitivity (guidance shows none as unknown).
    const listed = new Set(adapter.scopes.map((s) => s.name));
    for (const scope of adapter.defaultScopes) expect(listed.has(scope)).toBe(true);
    expect(adapter.consentGuidance(adapter.defaultScopes).scopes.every((s) => s.sensitivity !== "unknown")).toBe(true);
  });

  test("the Microsoft providers fill their tenant from the integration's setting, `common` by default", () => {
    for (const name of ["outlook", "one-drive", "microsoft-teams"]) {
      const url = authorizationUrl(adapterNamed(name));
      expect(url.pathname).toBe("/common/oauth2/v2.0/authorize");
    }
  });

  test("X requires PKCE and authenticates the client with HTTP Basic", () => {
    const x = adapterNamed("twitter-v2");
    expect(x.pkce).toBe("required");
    expect(x.clientAuthentication).toBe("client_secret_basic");
  });

  test("Mailchimp's API host and DocuSign's come from each connection", () => {
    const mailchimp = adapterNamed("mailchimp");
    expect(mailchimp.connectionConfig.map((f) => f.key)).toContain("dc");
    expect(fillPlaceholders(mailchimp.baseUrl, { dc: "us6" })).toEqual({
      ok: true,
      url: "https://us6.api.mailchimp.com",
    });
    expect(fillPlaceholders(mailchimp.baseUrl, { dc: "evil.example.com/x" }).ok).toBe(false);
    const docusign = adapterNamed("docusign");
    expect(docusign.connectFields.map((f) => f.key)).toEqual(["base_uri"]);
    expect(fillPlaceholders(docusign.baseUrl, { base_uri: "https://na3.docusign.net" })).toEqual({
      ok: true,
      url: "https://na3.docusign.net",
    });
  });

  test.each(Object.keys(KEYED))("%s: no OAuth URL, and the connect page asks for its credentials", (name) => {
    const adapter = adapterNamed(name);
    const keyed = KEYED[name] as (typeof KEYED)[string];
    expect(adapter.authMode).toBe(keyed.mode);
    expect(adapter.authorizationUrl).toBe("");
    expect(adapter.tokenUrl).toBe("");
    expect(adapter.connectFields.map((f) => f.key)).toEqual(keyed.fields);
    for (const field of adapter.connectFields) expect(field.docsUrl ?? "").toStartWith("https://");
    expect(adapter.connectFields.filter((f) => f.key !== "username").every((f) => f.secret)).toBe(true);
    const placement = adapter.apiKey
      ? `${adapter.apiKey.in} ${adapter.apiKey.name} ${adapter.apiKey.prefix}`
      : undefined;
    expect(placement).toBe(keyed.placement);
  });
});
