import { create } from "@bufbuild/protobuf";
import { type RunCaller, RunCallerKind, RunCallerSchema } from "@junction/contracts/scripts/v1/scripts_service_pb";
import type { RouteContext } from "../../router.ts";

/**
 * Who runs an action through a REST route: the dashboard session, else the secret key that
 * authenticated the request (its name and id, never the key). `kind` is what the key is used as
 * (MCP_CLIENT for POST /mcp); a dashboard session is always DASHBOARD.
 */
export function keyCaller(
  ctx: Pick<RouteContext, "secretKey" | "dashboard">,
  kind: RunCallerKind = RunCallerKind.SECRET_KEY,
): RunCaller | undefined {
  const key = ctx.secretKey;
  if (!key) return undefined;
  return create(RunCallerSchema, {
    kind: ctx.dashboard ? RunCallerKind.DASHBOARD : kind,
    name: key.name,
    keyId: key.id,
  });
}
