import type { SetTestModeRequest } from "@junction/contracts/connection/v1/connection_service_pb";
import type { ConnectionServiceContext } from "../../context.ts";
import { errors } from "../../errors.ts";
import type { IntegrationRecord } from "../../store/records.ts";
import { loadIntegration, testModeOf } from "./integration-test-mode.ts";

/** Switches an integration's test mode; on only when the provider has test credentials. */
export async function setTestMode(ctx: ConnectionServiceContext, req: SetTestModeRequest) {
  const { env, rec } = await loadIntegration(ctx, req.uniqueKey);
  if (req.enabled && !ctx.oauth.testCredentials[rec.provider]) {
    throw errors.testCredentialsUnavailable(rec.uniqueKey, rec.provider);
  }
  const next: IntegrationRecord = { ...rec, useTestCredentials: req.enabled, updatedAt: ctx.clock.now() };
  if (!(await ctx.store.replaceIntegration(env.id, rec.uniqueKey, next))) {
    throw errors.unknownProviderConfig(req.uniqueKey);
  }
  ctx.logger.info("integration test mode switched", { integration: rec.uniqueKey, enabled: req.enabled });
  return { testMode: testModeOf(ctx, next) };
}
