import type { ConsentGuidance, GuidanceSensitivity, ProviderAdapter } from "../adapter.ts";
import { parseProviderDefinition } from "./provider-definition.ts";
import { listedScopes } from "./scope-listing.ts";

const RANK: Record<GuidanceSensitivity, number> = { unknown: 0, basic: 1, sensitive: 2, restricted: 3 };

/** Consent guidance from a definition's scope sensitivities alone (no provider-specific review rules). */
function definitionConsentGuidance(adapter: ProviderAdapter, scopes: string[]): ConsentGuidance {
  const listed = listedScopes(adapter.scopes, scopes);
  const highest = listed.reduce<GuidanceSensitivity>(
    (h, s) => (RANK[s.sensitivity] > RANK[h] ? s.sensitivity : h),
    "unknown",
  );
  return {
    scopes: listed,
    highestSensitivity: highest,
    verificationRequired: false,
    securityAssessmentRequired: false,
    testingModeRefreshTokenDays: 0,
    notes: adapter.docsUrl ? [`See the provider's documentation: ${adapter.docsUrl}`] : [],
  };
}

/**
 * An adapter from a definition given as data (a file in the data directory): validated by the schema,
 * with consent guidance from its scopes. Over a built-in of the same name, the data replaces the
 * built-in's and its code (notifications, channels, account email) stays.
 */
export function adapterFromDefinition(input: unknown, builtin?: ProviderAdapter): ProviderAdapter {
  const definition = parseProviderDefinition(input);
  if (builtin) return { ...builtin, ...definition };
  const adapter: ProviderAdapter = {
    ...definition,
    consentGuidance: (scopes) => definitionConsentGuidance(adapter, scopes),
  };
  return adapter;
}
