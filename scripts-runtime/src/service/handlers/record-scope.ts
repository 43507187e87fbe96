import { invalidArgument, JunctionError } from "@junction/platform";
import { decodeCursor } from "../../records/record-cursor.ts";
import type { RecordScope } from "../../records/record-store.ts";
import type { ScriptsServiceContext } from "../context.ts";
import { errors } from "../errors.ts";
import { BASE_VARIANT } from "../host/sync-run-data.ts";
import { callService } from "./call-service.ts";

/** A request naming a connection's model, as the record RPCs take it. */
export interface ModelRequest {
  providerConfigKey: string;
  connectionId: string;
  model: string;
  variant: string;
}

/** A required field of a request. */
export function required(value: string, path: string): string {
  if (!value) throw errors.invalidField(path, "is required");
  return value;
}

/** The connection's scope; it must exist (Nango answers 400 unknown_connection otherwise). */
export async function connectionScope(
  ctx: ScriptsServiceContext,
  req: { providerConfigKey: string; connectionId: string },
) {
  const providerConfigKey = required(req.providerConfigKey, "provider_config_key");
  const connectionId = required(req.connectionId, "connection_id");
  try {
    await callService(ctx.clients().connection.getConnection({ providerConfigKey, connectionId }));
  } catch (err) {
    if (err instanceof JunctionError && err.code === "unknown_connection") {
      throw invalidArgument("unknown_connection", err.message);
    }
    throw err;
  }
  return { environmentId: await ctx.environment(), providerConfigKey, connectionId };
}

/** The scope of a connection's model and variant. */
export async function modelScope(ctx: ScriptsServiceContext, req: ModelRequest): Promise<RecordScope> {
  return {
    ...(await connectionScope(ctx, req)),
    model: required(req.model, "model"),
    variant: req.variant || BASE_VARIANT,
  };
}

/** The sequence number of a cursor of the partition; 400 invalid_cursor otherwise. */
export function cursorOf(secret: Uint8Array | null, cursor: string, path: string): number {
  const seq = decodeCursor(secret, cursor);
  if (seq === null) {
    throw invalidArgument("invalid_cursor", `${path} is not a cursor of this connection's model.`, [
      { path, message: "is not a cursor of this connection's model" },
    ]);
  }
  return seq;
}
