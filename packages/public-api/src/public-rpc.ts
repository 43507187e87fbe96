import type { Client } from "@connectrpc/connect";
import { SERVICE_DEFINITIONS } from "./service-clients.ts";

/**
 * The public subset of the services' Connect APIs, served by the gateway under RPC_PREFIX with the
 * secret key (docs/rpc.md). Only what the REST API also lets a caller do: never credential resolution,
 * key verification, notification intake, connect-form internals, or the webhook settings and signing-secret
 * rotation (which answers a secret's plaintext). The gateway checks each method's input as its REST route does (gateway/src/rpc/).
 */
export const PUBLIC_RPC_METHODS = {
  connection: [
    "listIntegrations",
    "getIntegration",
    "createIntegration",
    "updateIntegration",
    "deleteIntegration",
    "listConnections",
    "getConnection",
    "updateConnection",
    "deleteConnection",
    "writeMetadata",
  ],
  webhook: ["listMessages", "getMessage", "replayMessage", "replayFailed"],
  channel: ["listChannels", "getChannel", "stopChannels"],
  scripts: [
    "listScripts",
    "getScript",
    "listRuns",
    "getRun",
    "triggerSyncs",
    "getSyncStatus",
    "setSyncsPaused",
    "setSyncFrequency",
    "listRecords",
    "pruneRecords",
    "listRecordModels",
  ],
} as const;

/** The URL prefix the gateway serves the public RPCs under: `/rpc/<package.Service>/<Method>`. */
export const RPC_PREFIX = "/rpc";

/** A service with public RPCs. */
export type PublicServiceKey = keyof typeof PUBLIC_RPC_METHODS;

/** A typed client of one service's public RPCs only. */
export type PublicClient<K extends PublicServiceKey> = Pick<
  Client<(typeof SERVICE_DEFINITIONS)[K]>,
  Extract<(typeof PUBLIC_RPC_METHODS)[K][number], keyof Client<(typeof SERVICE_DEFINITIONS)[K]>>
>;

/** Typed clients of every service's public RPCs. */
export type PublicClients = { [K in PublicServiceKey]: PublicClient<K> };

/** The service descriptor of a public service. */
export function publicServiceDefinition<K extends PublicServiceKey>(key: K): (typeof SERVICE_DEFINITIONS)[K] {
  return SERVICE_DEFINITIONS[key];
}
