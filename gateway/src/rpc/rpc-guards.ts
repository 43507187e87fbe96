import { Code } from "@connectrpc/connect";
import type { UpstreamOverrides } from "@junction/contracts/connection/v1/connection_service_pb";
import { type FieldError, invalidArgument, JunctionError } from "@junction/platform";
import { MAX_METADATA_BYTES } from "@junction/public-api/limits";
import type { PUBLIC_RPC_METHODS, PublicServiceKey } from "@junction/public-api/public-rpc";
import type { GatewayClients } from "../clients.ts";
import { checkIntegrationSettings } from "../routes/integration-settings-input.ts";
import { checkWebhookUrlOverride } from "../routes/webhook-url-override.ts";

/** What a guard sees besides the request: the caller's environment and the internal clients. */
export interface GuardContext {
  environmentId: string;
  clients: GatewayClients;
}

/**
 * One public RPC's edge: the largest body its REST route takes, and the checks the REST route makes
 * before calling the service (the services trust their callers for these: "already checked by the
 * caller"). A guard throws a JunctionError or returns the request to send on.
 */
export interface RpcGuard {
  bodyLimit: number;
  // biome-ignore lint/suspicious/noExplicitAny: each guard is typed by its method in RPC_GUARDS below.
  check?: (req: any, ctx: GuardContext) => unknown | Promise<unknown>;
  /** What of the service's answer the caller gets, when not all of it. */
  // biome-ignore lint/suspicious/noExplicitAny: typed by its method, as `check`.
  answer?: (res: any) => unknown;
}

/** The REST routes' body limit for everything but metadata (integrations, connections, syncs). */
const BODY_LIMIT = 64 * 1024;
const plain: RpcGuard = { bodyLimit: BODY_LIMIT };

type Guards = { [K in PublicServiceKey]: Record<(typeof PUBLIC_RPC_METHODS)[K][number], RpcGuard> };

/** Per public method: its body limit and checks. The compiler asks for an entry per public method. */
export const RPC_GUARDS: Guards = {
  connection: {
    listIntegrations: plain,
    getIntegration: plain,
    createIntegration: {
      bodyLimit: BODY_LIMIT,
      check: (req) => {
        checkNames(req.uniqueKey, req.displayName);
        checkOverrides(req.overrides);
        checkIntegrationSettings(req.provider, {
          provider_settings: req.providerSettings,
          managed_channels: req.managedChannels,
        });
      },
    },
    updateIntegration: {
      bodyLimit: BODY_LIMIT,
      check: async (req, { clients }) => {
        checkNames(req.newUniqueKey, req.displayName);
        checkOverrides(req.overrides);
        if (req.providerSettings !== undefined || req.managedChannels !== undefined) {
          const current = await clients.connection.getIntegration({ uniqueKey: req.uniqueKey });
          checkIntegrationSettings(current.integration?.provider ?? "", {
            provider_settings: req.providerSettings?.values,
            managed_channels: req.managedChannels,
          });
        }
      },
    },
    deleteIntegration: plain,
    listConnections: plain,
    // As REST's default (no `refresh_token=true`): the refresh token stays in Junction, also out of `raw`.
    getConnection: { bodyLimit: BODY_LIMIT, answer: withoutRefreshToken },
    updateConnection: {
      bodyLimit: BODY_LIMIT,
      check: async (req, { clients }) => {
        // "" clears the override, as PATCH /connections/{id} does; a URL is checked by the endpoints' rules.
        if (req.webhookUrlOverride)
          req.webhookUrlOverride = await checkWebhookUrlOverride(clients, req.webhookUrlOverride);
      },
    },
    deleteConnection: plain,
    // The metadata routes' limit: the whole body, as POST /connections/metadata reads it.
    writeMetadata: { bodyLimit: MAX_METADATA_BYTES },
  },
  webhook: { listMessages: plain, getMessage: plain, replayMessage: plain, replayFailed: plain },
  channel: {
    listChannels: plain,
    getChannel: plain,
    stopChannels: {
      bodyLimit: BODY_LIMIT,
      check: (req, { environmentId }) => {
        // The caller's environment is its key's: naming another one is refused, never served.
        if (req.environmentId !== "" && req.environmentId !== environmentId) {
          throw new JunctionError(
            "environment_not_allowed",
            "environment_id must be empty or the secret key's own environment.",
            Code.PermissionDenied,
          );
        }
        req.environmentId = environmentId;
      },
    },
  },
  scripts: {
    listScripts: plain,
    getScript: plain,
    listRuns: plain,
    getRun: plain,
    triggerSyncs: { bodyLimit: BODY_LIMIT, check: (req) => checkSyncs(req.syncs) },
    getSyncStatus: { bodyLimit: BODY_LIMIT, check: (req) => checkSyncs(req.syncs) },
    setSyncsPaused: { bodyLimit: BODY_LIMIT, check: (req) => checkSyncs(req.syncs) },
    setSyncFrequency: {
      bodyLimit: BODY_LIMIT,
      check: (req) => {
        checkSyncs([req.syncName]);
        if (req.frequency !== undefined && req.frequency.length > 255) {
          throw invalidArgument("invalid_body", "Invalid request body.", [
            { location: "body", path: "frequency", message: "must be at most 255 characters" },
          ]);
        }
      },
    },
    listRecords: {
      bodyLimit: BODY_LIMIT,
      check: (req) => {
        // As GET /records: at most 100 ids of 1..255 characters.
        if (req.ids.length > 100 || req.ids.some((id: string) => id.length < 1 || id.length > 255)) {
          throw invalidArgument("invalid_body", "Invalid request body.", [
            { location: "body", path: "ids", message: "must be at most 100 ids of 1 to 255 characters" },
          ]);
        }
      },
    },
    pruneRecords: plain,
    listRecordModels: plain,
  },
};

/** As the REST schemas: ids and names of 1..255 characters. */
function checkNames(uniqueKey: string | undefined, displayName: string | undefined): void {
  const errors: FieldError[] = [];
  if (uniqueKey !== undefined && (uniqueKey.length < 1 || uniqueKey.length > 255)) {
    errors.push({ location: "body", path: "unique_key", message: "must be 1 to 255 characters" });
  }
  if (displayName !== undefined && displayName.length > 255) {
    errors.push({ location: "body", path: "display_name", message: "must be at most 255 characters" });
  }
  if (errors.length > 0) throw invalidArgument("invalid_body", "Invalid request body.", errors);
}

/** As the REST schema: each override given is an absolute URL of at most 2048 characters. */
function checkOverrides(overrides: UpstreamOverrides | undefined): void {
  if (!overrides) return;
  const fields = {
    base_url: overrides.baseUrl,
    authorization_url: overrides.authorizationUrl,
    token_url: overrides.tokenUrl,
  };
  const errors: FieldError[] = [];
  for (const [path, value] of Object.entries(fields)) {
    if (value !== "" && (value.length > 2048 || !URL.canParse(value))) {
      errors.push({ location: "body", path: `overrides.${path}`, message: "must be a URL of at most 2048 characters" });
    }
  }
  if (errors.length > 0) throw invalidArgument("invalid_body", "Invalid request body.", errors);
}

/** As the sync routes' schema: at most 256 sync names of 1..64 characters. */
function checkSyncs(syncs: string[]): void {
  const errors: FieldError[] = [];
  if (syncs.length > 256) errors.push({ location: "body", path: "syncs", message: "must list at most 256 syncs" });
  syncs.forEach((name, i) => {
    if (name.length < 1 || name.length > 64) {
      errors.push({ location: "body", path: `syncs.${i}`, message: "must be 1 to 64 characters" });
    }
  });
  if (errors.length > 0) throw invalidArgument("invalid_body", "Invalid request body.", errors);
}

/**
 * A connection's answer without its refresh token (REST leaves it out unless `refresh_token=true`). A copy:
 * in one process the answer is the connection service's own message, whose parts other callers may share.
 */
function withoutRefreshToken(res: { credentials?: { refreshToken: string; raw?: Record<string, unknown> } }): unknown {
  if (!res.credentials) return res;
  const { refresh_token: _withheld, ...raw } = res.credentials.raw ?? {};
  const credentials = { ...res.credentials, refreshToken: "", ...(res.credentials.raw ? { raw } : {}) };
  return { ...res, credentials };
}
