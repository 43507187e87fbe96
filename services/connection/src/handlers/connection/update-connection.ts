import type { UpdateConnectionRequest } from "@junction/contracts/connection/v1/connection_service_pb";
import type { ConnectionServiceContext } from "../../context.ts";
import { errors } from "../../errors.ts";
import { lookupConnection, presentConnection, tagsOf } from "./connection-lookup.ts";

/**
 * UpdateConnection, Nango's PATCH /connections/{id}: tags derive from the end user as on import; the webhook URL
 * override was checked by the caller ("" clears it).
 */
export async function updateConnection(ctx: ConnectionServiceContext, req: UpdateConnectionRequest) {
  const { env, rec } = await lookupConnection(ctx, req.providerConfigKey, req.connectionId);
  const endUser = (req.endUser as Record<string, unknown> | undefined) ?? undefined;
  const tags = endUser || req.setTags ? tagsOf(endUser ?? null, req.tags) : undefined;
  const override = req.webhookUrlOverride;
  const updated = await ctx.store.patchConnection(
    env.id,
    rec.providerConfigKey,
    rec.connectionId,
    {
      endUser,
      tags,
      webhookUrlOverride: override === undefined ? undefined : override === "" ? null : override,
    },
    ctx.clock.now(),
  );
  if (!updated) throw errors.unknownConnection(rec.providerConfigKey, [rec.connectionId]);
  ctx.logger.info("connection updated", { integration: rec.providerConfigKey, connectionId: rec.connectionId });
  return { connection: presentConnection(ctx, updated) };
}
