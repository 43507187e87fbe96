import type { DeleteIntegrationRequest } from "@junction/contracts/connection/v1/connection_service_pb";
import type { ConnectionServiceContext } from "../../context.ts";
import { errors } from "../../errors.ts";
import { integrationOrRefuse } from "../integration-or-refuse.ts";

/** DeleteIntegration: refused while it has connections unless forced; then it and its connections go. */
export async function deleteIntegration(ctx: ConnectionServiceContext, req: DeleteIntegrationRequest) {
  const env = await ctx.environment();
  await integrationOrRefuse(ctx, env.id, req.uniqueKey);
  const count = await ctx.store.countConnections(env.id, req.uniqueKey);
  if (count > 0 && !req.force) throw errors.integrationHasConnections(req.uniqueKey, count);
  const deleted = await ctx.store.deleteIntegration(env.id, req.uniqueKey);
  ctx.logger.info("integration deleted", { integration: req.uniqueKey, deletedConnections: deleted });
  return { deletedConnections: deleted };
}
