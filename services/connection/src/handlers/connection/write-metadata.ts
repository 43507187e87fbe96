import { MetadataWriteMode, type WriteMetadataRequest } from "@junction/contracts/connection/v1/connection_service_pb";
import type { ConnectionServiceContext } from "../../context.ts";
import { errors } from "../../errors.ts";
import { checkMetadataSize, validateMetadata } from "../../metadata-rules.ts";
import { UnknownConnectionsError } from "../../store/store.ts";
import { lookupIntegration, presentConnection } from "./connection-lookup.ts";

/** WriteMetadata: Nango's set (replace) and update (merge) of connections' metadata, 1 MiB each. */
export async function writeMetadata(ctx: ConnectionServiceContext, req: WriteMetadataRequest) {
  const { env } = await lookupIntegration(ctx, req.providerConfigKey);
  if (req.connectionIds.length === 0) throw errors.invalidField("connection_id", "is required");
  if (req.mode === MetadataWriteMode.UNSPECIFIED) throw errors.invalidField("mode", "must be set or update");
  const metadata = (req.metadata ?? {}) as Record<string, unknown>;
  validateMetadata(metadata);
  checkMetadataSize(metadata);
  const ids = [...new Set(req.connectionIds)];
  if (req.mode === MetadataWriteMode.UPDATE) {
    // The merged metadata is held to the same size. Checked before the write: writes racing
    // each other can pass one write's size beyond it, never more, and the next merge is refused.
    for (const id of ids) {
      const existing = await ctx.store.getConnection(env.id, req.providerConfigKey, id);
      if (existing) checkMetadataSize({ ...existing.metadata, ...metadata }, `metadata (merged into ${id})`);
    }
  }
  try {
    const recs = await ctx.store.writeMetadata(
      env.id,
      req.providerConfigKey,
      ids,
      metadata,
      req.mode === MetadataWriteMode.SET ? "set" : "update",
      ctx.clock.now(),
    );
    return { connections: recs.map((rec) => presentConnection(ctx, rec)) };
  } catch (err) {
    if (err instanceof UnknownConnectionsError)
      throw errors.unknownConnection(req.providerConfigKey, err.connectionIds);
    throw err;
  }
}
