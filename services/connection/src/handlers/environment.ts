import { create } from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";
import { type ConnectionService, EnvironmentSchema } from "@junction/contracts/connection/v1/connection_service_pb";
import type { ConnectionServiceContext } from "../context.ts";
import { ActiveKeys } from "./environment/active-keys.ts";
import { createSecretKey, listSecretKeys, revokeSecretKey, verifySecretKey } from "./environment/secret-keys.ts";

/** Environment and secret keys (the key RPCs in `environment/secret-keys.ts`). */
export function environmentHandlers(ctx: ConnectionServiceContext): Partial<ServiceImpl<typeof ConnectionService>> {
  const active = new ActiveKeys(ctx);
  return {
    async getEnvironment() {
      const env = await ctx.environment();
      return {
        environment: create(EnvironmentSchema, {
          id: env.id,
          name: env.name,
          baseUrl: ctx.baseUrl,
          credentialReads: ctx.settings.credentialReads,
        }),
      };
    },
    verifySecretKey: (req) => verifySecretKey(ctx, active, req),
    createSecretKey: (req) => createSecretKey(ctx, active, req),
    listSecretKeys: () => listSecretKeys(ctx),
    revokeSecretKey: (req) => revokeSecretKey(ctx, active, req),
  };
}
