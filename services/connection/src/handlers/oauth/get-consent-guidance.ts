import type { GetConsentGuidanceRequest } from "@junction/contracts/connection/v1/connection_service_pb";
import type { ConnectionServiceContext } from "../../context.ts";
import { errors } from "../../errors.ts";
import { loadIntegration } from "./integration-test-mode.ts";

/** What the provider's consent screen will ask of the integration's scopes, and what verification they need. */
export async function getConsentGuidance(ctx: ConnectionServiceContext, req: GetConsentGuidanceRequest) {
  const { rec } = await loadIntegration(ctx, req.uniqueKey);
  const template = ctx.providers.get(rec.provider);
  if (!template)
    throw errors.unknownProvider(
      rec.provider,
      ctx.providers.list().map((p) => p.name),
    );
  const g = template.consentGuidance(rec.scopes);
  return {
    providerConfigKey: rec.uniqueKey,
    provider: rec.provider,
    scopes: g.scopes,
    highestSensitivity: g.highestSensitivity,
    verificationRequired: g.verificationRequired,
    securityAssessmentRequired: g.securityAssessmentRequired,
    testingModeRefreshTokenDays: g.testingModeRefreshTokenDays,
    notes: g.notes,
  };
}
