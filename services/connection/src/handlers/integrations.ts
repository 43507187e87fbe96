import type { ServiceImpl } from "@connectrpc/connect";
import type { ConnectionService } from "@junction/contracts/connection/v1/connection_service_pb";
import type { ConnectionServiceContext } from "../context.ts";
import { createIntegration } from "./integration/create-integration.ts";
import { deleteIntegration } from "./integration/delete-integration.ts";
import { getIntegration, listIntegrations } from "./integration/read-integrations.ts";
import { updateIntegration } from "./integration/update-integration.ts";

/** The integration RPCs, one file each under `integration/`. */
export function integrationHandlers(ctx: ConnectionServiceContext): Partial<ServiceImpl<typeof ConnectionService>> {
  return {
    createIntegration: (req) => createIntegration(ctx, req),
    getIntegration: (req) => getIntegration(ctx, req),
    listIntegrations: () => listIntegrations(ctx),
    updateIntegration: (req) => updateIntegration(ctx, req),
    deleteIntegration: (req) => deleteIntegration(ctx, req),
  };
}
