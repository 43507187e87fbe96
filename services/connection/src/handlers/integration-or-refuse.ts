import type { ConnectionServiceContext } from "../context.ts";
import { errors } from "../errors.ts";
import type { IntegrationRecord } from "../store/records.ts";

/** How many existing ids an unknown-integration error names at most. */
const NAMED_AT_MOST = 20;

/**
 * The integration `key` of the environment, or `unknown_provider_config` naming the ids that do exist, so that
 * a caller who sent a provider's name where the integration's id is another sees the right one.
 */
export async function integrationOrRefuse(
  ctx: ConnectionServiceContext,
  environmentId: string,
  key: string,
): Promise<IntegrationRecord> {
  const rec = await ctx.store.getIntegration(environmentId, key);
  if (rec) return rec;
  throw await unknownIntegration(ctx, environmentId, key);
}

/** The `unknown_provider_config` error for `key`, naming the environment's integration ids. */
export async function unknownIntegration(ctx: ConnectionServiceContext, environmentId: string, key: string) {
  const ids = (await ctx.store.listIntegrations(environmentId)).map((i) => i.uniqueKey).sort();
  return errors.unknownProviderConfig(key, ids.slice(0, NAMED_AT_MOST), ids.length);
}
