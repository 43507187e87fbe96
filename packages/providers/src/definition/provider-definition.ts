import { issueMessage, reportableIssues } from "@junction/platform/issue-message";
import { z } from "zod";
import { PLACEHOLDER_PATTERN } from "./placeholders.ts";

/**
 * A provider's definition: data only, validated by one schema. Code a provider needs
 * beside it (reading notifications, consent guidance) lives in its adapter. Every field with a default
 * can be left out; a definition is written in the input shape and used in the output shape.
 */

/** How a connection authenticates upstream. */
export const AUTH_MODES = ["OAUTH2", "OAUTH2_CC", "API_KEY", "BASIC"] as const;
export type AuthMode = (typeof AUTH_MODES)[number];

/** How the upstream classifies a scope (spec: Authentication 6–7). */
export const scopeSensitivitySchema = z.enum(["basic", "sensitive", "restricted"]);
export type ScopeSensitivity = z.output<typeof scopeSensitivitySchema>;

const scopeSchema = z.strictObject({
  name: z.string().min(1),
  description: z.string(),
  /** As the upstream classifies the scope; left out where the upstream does not classify its scopes. */
  sensitivity: scopeSensitivitySchema.optional(),
});
export type ScopeTemplate = z.output<typeof scopeSchema>;

/** Roles of the notification headers an upstream sends; values are lower-case header names. */
const webhookHeadersSchema = z.strictObject({
  channelId: z.string(),
  resourceId: z.string(),
  resourceUri: z.string(),
  resourceState: z.string(),
  messageNumber: z.string(),
  channelToken: z.string(),
  channelExpiration: z.string(),
});
export type WebhookHeaderNames = z.output<typeof webhookHeadersSchema>;

/** An http(s) URL that may hold `{key}` placeholders; checked with each placeholder replaced. */
export const templateUrlSchema = z.string().refine(
  (value) => {
    const sample = value.replace(PLACEHOLDER_PATTERN, (_w, _k, offset: number) =>
      offset === 0 ? "https://placeholder.example" : "placeholder",
    );
    try {
      const url = new URL(sample);
      return url.protocol === "https:" || url.protocol === "http:";
    } catch {
      return false;
    }
  },
  { message: "must be an http(s) URL; placeholders are written {name}" },
);

/** A link shown to end users and operators (a provider's documentation): https only, never javascript: or data:. */
const httpsLinkSchema = z
  .string()
  .url()
  .refine((value) => value.startsWith("https://"), { message: "must be an https:// URL" });

/** A header name or value as sent: no CR, LF or NUL (they would end the header, and every call would fail). */
const headerTextSchema = z.string().refine((value) => !/[\r\n\0]/.test(value), {
  message: "must not contain CR, LF or NUL",
});

/** A dotted path into a JSON object ("authed_user.access_token"); "" is the object itself. */
const jsonPathSchema = z.string().regex(/^$|^[A-Za-z0-9_$-]+(\.[A-Za-z0-9_$-]+)*$/, {
  message: "must be a dotted path of keys (letters, digits, _ - $), e.g. authed_user.access_token",
});

/** How the token endpoint's answer is read. */
const tokenResponseSchema = z.strictObject({
  /** What the endpoint answers with (asked for with Accept); a `content-type` saying otherwise wins. */
  format: z.enum(["json", "form"]).default("json"),
  /** Where access_token, refresh_token, expires_in, scope and token_type sit: "" the top level, "authed_user" Slack's user token. */
  root: jsonPathSchema.default(""),
  /** token_type values accepted (compared lower-cased); an answer without token_type is accepted. */
  tokenTypes: z.array(z.string().min(1)).min(1).default(["bearer"]),
});

/**
 * A connection-config field written at authorization: read from the token answer, from a query parameter
 * of the authorization callback (QuickBooks' realmId), or from a request after it.
 */
const connectionConfigFieldSchema = z.discriminatedUnion("from", [
  z.strictObject({ key: z.string().min(1), from: z.literal("token_response"), path: jsonPathSchema }),
  z.strictObject({
    key: z.string().min(1),
    from: z.literal("callback"),
    /** The callback's query parameter (not state, code, error or error_description). */
    param: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, { message: "must be a query parameter name" }),
  }),
  z.strictObject({
    key: z.string().min(1),
    from: z.literal("request"),
    /** GET with the new access token: a path under the base URL ("/v1/me"), or a full URL with placeholders. */
    url: z.string().min(1),
    /** Into the answer; a number indexes an array ("0.id": the first site's id). */
    path: jsonPathSchema,
  }),
]);
export type ConnectionConfigField = z.output<typeof connectionConfigFieldSchema>;

/** A field the connect page asks the user for (API key, username, subdomain...). */
const connectFieldSchema = z.strictObject({
  /** "apiKey", "username", "password", or a connection-config key (e.g. "subdomain"). */
  key: z.string().min(1),
  label: z.string().min(1),
  /** Where the user finds the value (a documentation or settings URL). */
  docsUrl: httpsLinkSchema.optional(),
  /** Shown masked and stored encrypted with the credentials. */
  secret: z.boolean().default(false),
});
export type ConnectField = z.output<typeof connectFieldSchema>;

/** The account identity request: a GET (a POST with `body`) with the connection's credentials that says whose account it is. */
const identitySchema = z.strictObject({
  /** A path under the base URL ("/user"), or a full URL with placeholders. */
  url: z.string().min(1),
  /** A JSON body (a GraphQL query): the request is then a POST. */
  body: z.string().min(1).optional(),
  /** Where the account's id is in the answer ("id", "authed_user.id", "0.id"). */
  idPath: jsonPathSchema,
  /** The provider's documentation of the request. */
  docsUrl: httpsLinkSchema,
});

/** Where a credential goes on proxied calls (an API key, or an OAuth access token where the upstream says so). */
const apiKeySchema = z.strictObject({
  in: z.enum(["header", "query"]).default("header"),
  name: headerTextSchema.pipe(z.string().min(1)).default("authorization"),
  /** Put before the key ("Bearer ", "Token "); "" for none. */
  prefix: headerTextSchema.default(""),
});

/**
 * How the provider's list endpoints page (Nango's `proxy.paginate`, what a script's `nango.paginate`
 * uses unless it passes its own): field names as Nango's, dotted paths into the answer.
 */
const paginateSchema = z.discriminatedUnion("type", [
  z.strictObject({
    type: z.literal("cursor"),
    cursor_name_in_request: z.string().min(1),
    cursor_path_in_response: z.string().min(1),
    response_path: z.string().min(1).optional(),
    limit_name_in_request: z.string().min(1).optional(),
  }),
  z.strictObject({
    type: z.literal("link"),
    link_rel_in_response_header: z.string().min(1).optional(),
    link_path_in_response_body: z.string().min(1).optional(),
    response_path: z.string().min(1).optional(),
    limit_name_in_request: z.string().min(1).optional(),
  }),
  z.strictObject({
    type: z.literal("offset"),
    offset_name_in_request: z.string().min(1),
    offset_start_value: z.number().int().optional(),
    offset_calculation_method: z.enum(["per-page", "by-response-size"]).optional(),
    response_path: z.string().min(1).optional(),
    limit_name_in_request: z.string().min(1).optional(),
  }),
]);
export type ProviderPagination = z.output<typeof paginateSchema>;

export const providerDefinitionSchema = z
  .strictObject({
    /** Catalogue name: lower-case letters, digits and dashes. */
    name: z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/, { message: "must be lower-case letters, digits and -" }),
    displayName: z.string().min(1),
    authMode: z.enum(AUTH_MODES, { message: `must be one of ${AUTH_MODES.join(", ")}` }),
    /** The provider's documentation of its API and authorization. */
    docsUrl: httpsLinkSchema.default(""),
    baseUrl: templateUrlSchema,
    /** OAUTH2: where the user consents. "" for the other modes. */
    authorizationUrl: templateUrlSchema.or(z.literal("")).default(""),
    /** OAUTH2, OAUTH2_CC: where tokens are obtained and refreshed. "" for the other modes. */
    tokenUrl: templateUrlSchema.or(z.literal("")).default(""),
    /** OAUTH2: where refresh tokens are spent when not at `tokenUrl` (Figma's /v1/oauth/refresh); "" for `tokenUrl`. */
    refreshUrl: templateUrlSchema.or(z.literal("")).default(""),
    authorizationParams: z.record(z.string(), z.string()).default({}),
    /** Added to every token request (code exchange, refresh, client credentials). */
    tokenParams: z.record(z.string(), z.string()).default({}),
    scopes: z.array(scopeSchema).default([]),
    defaultScopes: z.array(z.string().min(1)).default([]),
    scopeSeparator: z.enum(["space", "comma", "plus"]).default("space"),
    /** The authorization parameter that carries the scopes (Slack's user token: user_scope). */
    scopeParameter: z
      .string()
      .regex(/^[a-z_]{1,32}$/, { message: "must be a parameter name (lower-case letters and _)" })
      .default("scope"),
    /** RFC 6749 2.3.1: the client secret in the form body (post) or an HTTP Basic header (basic). */
    clientAuthentication: z.enum(["client_secret_post", "client_secret_basic"]).default("client_secret_post"),
    /** RFC 7636: required and optional send an S256 challenge; refused sends none. */
    pkce: z.enum(["required", "optional", "refused"]).default("optional"),
    /** The refresh request repeats the granted scopes (some providers narrow the token otherwise). */
    refreshNeedsScopes: z.boolean().default(false),
    tokenResponse: tokenResponseSchema.default({ format: "json", root: "", tokenTypes: ["bearer"] }),
    connectionConfig: z.array(connectionConfigFieldSchema).default([]),
    /** Where an API key goes: header `Authorization: Bearer <key>` when not given. */
    apiKey: apiKeySchema.optional(),
    /**
     * Headers added to every proxied call (Notion's Notion-Version), under the credentials' own; a caller
     * replaces one with `Nango-Proxy-<name>`.
     */
    proxyHeaders: z
      .record(
        z.string().regex(/^[A-Za-z0-9-]{1,64}$/, { message: "must be a header name" }),
        headerTextSchema.pipe(z.string().max(1024)),
      )
      .default({}),
    /** OAUTH2, OAUTH2_CC: where the access token goes, when not `Authorization: Bearer` (Shopify's X-Shopify-Access-Token). */
    accessToken: apiKeySchema.optional(),
    connectFields: z.array(connectFieldSchema).default([]),
    identity: identitySchema.optional(),
    webhookHeaders: webhookHeadersSchema.nullable().default(null),
    /** Hosts a caller's Base-Url-Override may point at (never loopback or private ranges). */
    allowedOverrideHosts: z.array(z.string().min(1)).default([]),
    /** Connections read the account's email (the adapter's reader) and store connection_config.emailAddressHash. */
    storesEmailHash: z.boolean().default(false),
    /** How its list endpoints page, for scripts' `nango.paginate`. */
    paginate: paginateSchema.optional(),
  })
  .superRefine((d, ctx) => {
    const need = (field: "authorizationUrl" | "tokenUrl") => {
      if (d[field] === "") ctx.addIssue({ code: "custom", path: [field], message: `is required for ${d.authMode}` });
    };
    if (d.authMode === "OAUTH2") need("authorizationUrl");
    if (d.authMode === "OAUTH2" || d.authMode === "OAUTH2_CC") need("tokenUrl");
    if (d.refreshUrl !== "" && d.authMode !== "OAUTH2")
      ctx.addIssue({ code: "custom", path: ["refreshUrl"], message: `is only for OAUTH2 (not ${d.authMode})` });
    for (const [i, scope] of d.defaultScopes.entries()) {
      if (d.scopes.length > 0 && !d.scopes.some((s) => s.name === scope)) {
        ctx.addIssue({ code: "custom", path: ["defaultScopes", i], message: `"${scope}" is not in scopes` });
      }
    }
  });

/** A definition as written (defaults may be left out). */
export type ProviderDefinitionInput = z.input<typeof providerDefinitionSchema>;
/** A definition as used: every default applied. */
export type ProviderDefinition = z.output<typeof providerDefinitionSchema>;

/** Why a definition was refused: the provider, and each field with what is wrong. */
export class ProviderDefinitionError extends Error {
  constructor(
    readonly provider: string,
    readonly issues: { path: string; message: string }[],
  ) {
    super(
      `Provider definition "${provider}" is invalid: ${issues.map((i) => `${i.path || "(definition)"} ${i.message}`).join("; ")}. Fix these fields and load it again.`,
    );
    this.name = "ProviderDefinitionError";
  }
}

/** Validates a definition; the result has every default applied. Throws ProviderDefinitionError. */
export function parseProviderDefinition(input: unknown): ProviderDefinition {
  const parsed = providerDefinitionSchema.safeParse(input, { error: issueMessage });
  if (parsed.success) return parsed.data;
  const name =
    typeof input === "object" && input !== null && typeof (input as { name?: unknown }).name === "string"
      ? (input as { name: string }).name
      : "(unnamed)";
  throw new ProviderDefinitionError(
    name,
    reportableIssues(parsed.error.issues).map((i) => ({ path: i.path.join("."), message: i.message })),
  );
}

/** For adapters: a definition written in code, validated once at load. */
export function defineProvider(input: ProviderDefinitionInput): ProviderDefinition {
  return parseProviderDefinition(input);
}
