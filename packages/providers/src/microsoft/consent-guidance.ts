import type { ConsentGuidance, GuidanceSensitivity } from "../adapter.ts";
import { listedScopes } from "../definition/scope-listing.ts";
import type { ProviderTemplate } from "../provider-template.ts";

const ORDER: readonly GuidanceSensitivity[] = ["basic", "unknown", "sensitive", "restricted"];

/**
 * What an integration's scopes mean at Microsoft's consent prompt. Microsoft has no Google-style scope
 * classes; the template's classes stand for: "basic", delegated permissions any user may grant
 * (low impact by default: the OpenID scopes and User.Read); "sensitive", delegated permissions a user
 * may grant unless the tenant's consent policy keeps them for apps of verified publishers or for
 * admins (calendar and mail data); "restricted", permissions that always need an admin's consent
 * (https://learn.microsoft.com/en-us/entra/identity/enterprise-apps/configure-user-consent,
 * https://learn.microsoft.com/en-us/graph/permissions-reference).
 */
export function microsoftConsentGuidance(template: ProviderTemplate, scopes: string[]): ConsentGuidance {
  const listed = listedScopes(template.scopes, scopes);
  const named = (level: GuidanceSensitivity) => listed.filter((s) => s.sensitivity === level).map((s) => s.name);
  const highest = ORDER.reduce<GuidanceSensitivity>((top, level) => (named(level).length > 0 ? level : top), "basic");
  const userData = named("sensitive");
  const adminOnly = named("restricted");
  const unknown = named("unknown");
  const notes = [
    "Microsoft has no app review or Testing mode: any user the tenant setting admits can authorize once the app is registered; refresh tokens last 90 days and are renewed on use.",
  ];
  if (userData.length > 0) {
    notes.push(
      `User data (${userData.join(", ")}): users may grant these themselves unless their organization's consent policy allows user consent only for apps from verified publishers (Microsoft's recommended setting) or not at all; then an admin grants them for the tenant. Publisher verification (a Microsoft AI Cloud Partner Program account tied to the app registration) removes the "unverified" mark, avoids risk-based step-up consent sending users of multi-tenant apps to their admin, and lets users of tenants with that policy consent to the permissions their admin classified as low impact: https://learn.microsoft.com/en-us/entra/identity-platform/publisher-verification-overview.`,
    );
  }
  if (adminOnly.length > 0) {
    notes.push(
      `Admin consent required (${adminOnly.join(", ")}): only a tenant admin can grant these, once for the whole organization (the admin consent endpoint, /{tenant}/v2.0/adminconsent).`,
    );
  }
  if (unknown.length > 0) {
    notes.push(
      `Not in the ${template.displayName} scope catalogue (${unknown.join(", ")}): check "Admin consent required" for each in Microsoft Graph's permissions reference.`,
    );
  }
  notes.push(
    "offline_access is needed for a refresh token. Personal accounts (outlook.com) need the tenant setting common or consumers; organizations-only apps use organizations or the tenant's id.",
  );
  return {
    scopes: listed,
    highestSensitivity: highest,
    verificationRequired: userData.length > 0 || adminOnly.length > 0,
    securityAssessmentRequired: false,
    testingModeRefreshTokenDays: 0,
    notes,
  };
}
