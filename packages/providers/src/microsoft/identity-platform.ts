import type { IntegrationSetting } from "../adapter.ts";
import type { ScopeTemplate } from "../provider-template.ts";

/**
 * Microsoft identity platform v2 endpoints, the directory (tenant) in the path:
 * https://learn.microsoft.com/en-us/entra/identity-platform/v2-oauth2-auth-code-flow. `{tenant}` is
 * filled from the integration's provider settings by the connection service.
 */
export const MICROSOFT_OAUTH = {
  authorizationUrl: "https://login.microsoftonline.com/{tenant}/oauth2/v2.0/authorize",
  tokenUrl: "https://login.microsoftonline.com/{tenant}/oauth2/v2.0/token",
  // The code comes back in the redirect's query (the flow's documented default for response_type=code).
  authorizationParams: { response_mode: "query" },
};

/**
 * The directory users sign in through: `common` (work, school and personal accounts), `organizations`,
 * `consumers`, or one tenant's id or domain
 * (https://learn.microsoft.com/en-us/entra/identity-platform/v2-protocols#endpoints).
 */
export const MICROSOFT_TENANT_SETTING: IntegrationSetting = {
  key: "tenant",
  label: "Tenant",
  description:
    "The directory users sign in through: common (work, school and personal Microsoft accounts), organizations (work and school only), consumers (personal only), or one tenant's id or domain (e.g. contoso.onmicrosoft.com). It must match the app registration's supported account types.",
  defaultValue: "common",
  docsUrl: "https://learn.microsoft.com/en-us/entra/identity-platform/v2-protocols#endpoints",
};

/**
 * The OpenID Connect scopes and Graph's User.Read: no admin consent, and the permissions Microsoft
 * classifies as low impact by default
 * (https://learn.microsoft.com/en-us/entra/identity-platform/scopes-oidc,
 * https://learn.microsoft.com/en-us/graph/permissions-reference).
 */
export const MICROSOFT_BASIC_SCOPES: ScopeTemplate[] = [
  {
    name: "offline_access",
    description: "Maintain access to data you have given it access to (a refresh token is issued).",
    sensitivity: "basic",
  },
  { name: "openid", description: "Sign you in (an ID token is issued).", sensitivity: "basic" },
  { name: "email", description: "View your email address.", sensitivity: "basic" },
  { name: "profile", description: "View your basic profile.", sensitivity: "basic" },
  { name: "User.Read", description: "Sign in and read your profile.", sensitivity: "basic" },
];
