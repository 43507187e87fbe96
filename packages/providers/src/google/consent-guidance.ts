import type { ConsentGuidance, GuidanceSensitivity } from "../adapter.ts";
import { listedScopes } from "../definition/scope-listing.ts";
import type { ProviderTemplate } from "../provider-template.ts";

const RANK: Record<GuidanceSensitivity, number> = { basic: 0, unknown: 1, sensitive: 2, restricted: 3 };

/**
 * What an integration's scopes mean at Google's consent screen and app verification, from the template's
 * scope catalogue (spec: Authentication 5-8, Limits).
 */
export function googleConsentGuidance(template: ProviderTemplate, scopes: string[]): ConsentGuidance {
  const listed = listedScopes(template.scopes, scopes);
  const highest = listed.reduce<GuidanceSensitivity>(
    (top, s) => (RANK[s.sensitivity] > RANK[top] ? s.sensitivity : top),
    "basic",
  );
  const sensitive = listed.filter((s) => s.sensitivity === "sensitive").map((s) => s.name);
  const restricted = listed.filter((s) => s.sensitivity === "restricted").map((s) => s.name);
  const unknown = listed.filter((s) => s.sensitivity === "unknown").map((s) => s.name);
  const onlyBasic = listed.every((s) => s.sensitivity === "basic");
  const notes: string[] = [];
  if (onlyBasic) {
    notes.push(
      "Only basic scopes (openid, email, profile): no verification is needed, and refresh tokens do not expire after 7 days in Testing mode.",
    );
  } else {
    notes.push(
      "Audience External: before the app is verified, only test users added in the upstream console can authorize, and refresh tokens expire after 7 days in Testing mode (users must then authorize again). Switching the app to Production removes the 7-day limit. Audience Internal (workspace-only) avoids both for your own organization's users.",
    );
  }
  if (sensitive.length > 0) {
    notes.push(
      `Sensitive scopes (${sensitive.join(", ")}): going live needs the upstream's app verification, which can take several weeks. Development works in test mode.`,
    );
  }
  if (restricted.length > 0) {
    notes.push(
      `Restricted scopes (${restricted.join(", ")}): going live needs verification and a security assessment by an approved assessor, which can take several weeks. A user's password change revokes refresh tokens that hold mail scopes.`,
    );
  }
  if (unknown.length > 0) {
    notes.push(
      `Not in the ${template.displayName} scope catalogue (${unknown.join(", ")}): check their classification in the upstream console.`,
    );
  }
  notes.push(
    "Scopes must match the APIs enabled upstream. Incremental authorization (include_granted_scopes=true on /oauth/connect) adds scopes without the user re-granting earlier ones.",
  );
  return {
    scopes: listed,
    highestSensitivity: highest,
    verificationRequired: sensitive.length > 0 || restricted.length > 0,
    securityAssessmentRequired: restricted.length > 0,
    testingModeRefreshTokenDays: onlyBasic ? 0 : 7,
    notes,
  };
}
