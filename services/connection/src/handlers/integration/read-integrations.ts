import type { GetIntegrationRequest } from "@junction/contracts/connection/v1/connection_service_pb";
import type { ConnectionServiceContext } from "../../context.ts";
import { toIntegration, toProvider } from "../../mappers.ts";
import { integrationOrRefuse } from "../integration-or-refuse.ts";

/** GetIntegration: the integration of the environment, with its provider's definition. */
export async function getIntegration(ctx: ConnectionServiceContext, req: GetIntegrationRequest) {
  const env = await ctx.environment();
  const rec = await integrationOrRefuse(ctx, env.id, req.uniqueKey);
  const template = ctx.providers.get(rec.provider);
  return { integration: toIntegration(rec, ctx.baseUrl), provider: template ? toProvider(template) : undefined };
}

/** ListIntegrations: every integration of the environment. */
export async function listIntegrations(ctx: ConnectionServiceContext) {
  const env = await ctx.environment();
  const recs = await ctx.store.listIntegrations(env.id);
  return { integrations: recs.map((r) => toIntegration(r, ctx.baseUrl)) };
}
