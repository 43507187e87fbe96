import { integrationOrRefuse } from "./integration-or-refuse.ts";
import {
  create,
  type JsonObject,
  type Message,
  toBinary,
  type DescMessage,
  type MessageInitShape,
} from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";
import {
  type ConnectionService,
  CredentialsSchema,
  MetadataWriteMode,
} from "@junction/contracts/connection/v1/connection_service_pb";
import { ConnectionDeletingSchema } from "@junction/contracts/events/v1/events_pb";
import { LifecycleEvent, RunStatus } from "@junction/contracts/scripts/v1/scripts_service_pb";
import { subjects } from "@junction/bus";
import type { ConnectionServiceContext } from "../context.ts";
import type { StoredCredentials } from "../credentials.ts";
import { connectionBaseUrl, effectiveOverrides } from "../oauth/oauth-client.ts";
import { upstreamAuth } from "../upstream-auth.ts";
import { CredentialRefresher } from "../refresh/credential-refresher.ts";
import { sessionTags } from "../oauth/session-tags.ts";
import { saveConnection } from "../save-connection.ts";
import { errors } from "../errors.ts";
import { toConnection, toIntegration, toProvider } from "../mappers.ts";
import type { ProviderAdapter } from "@junction/providers";
import { enteredCredentials } from "../entered-credentials.ts";
import { checkMetadataSize, validateMetadata } from "../metadata-rules.ts";
import type { ConnectionRecord } from "../store/records.ts";
import { UnknownConnectionsError } from "../store/store.ts";

/** A connection's tags: derived from the end user (and its organization), then end_user.tags, then `tags`. */
function tagsOf(endUser: Record<string, unknown> | null, tags: Record<string, string>): Record<string, string> {
  const organization = endUser?.organization;
  const org =
    typeof organization === "object" && organization !== null ? (organization as Record<string, unknown>) : null;
  return sessionTags(endUser, org, endUser?.tags, tags);
}

/** Printable ASCII, no leading or trailing space, at most 255 characters (a superset of Nango's). */
const CONNECTION_ID_RE = /^[!-~](?:[ -~]{0,253}[!-~])?$/;

export function connectionHandlers(ctx: ConnectionServiceContext): Partial<ServiceImpl<typeof ConnectionService>> {
  // A connection's credentials are of its provider's auth mode.
  const present = (rec: ConnectionRecord) => toConnection(rec, ctx.providers.get(rec.provider)?.authMode);
  const integration = async (key: string) => {
    const env = await ctx.environment();
    if (!key) throw errors.invalidField("provider_config_key", "is required");
    return { env, rec: await integrationOrRefuse(ctx, env.id, key) };
  };
  const connection = async (key: string, connectionId: string) => {
    const { env, rec: integ } = await integration(key);
    if (!connectionId) throw errors.invalidField("connection_id", "is required");
    const rec = await ctx.store.getConnection(env.id, key, connectionId);
    if (!rec) throw errors.unknownConnection(key, [connectionId]);
    return { env, integ, rec };
  };
  const refresher = new CredentialRefresher(ctx);
  const publish = async <D extends DescMessage>(subject: string, schema: D, init: MessageInitShape<D>) => {
    await ctx.bus.publish(subject, toBinary(schema, create(schema, init) as Message & never));
  };

  return {
    async createConnection(req) {
      const { env, rec: integ } = await integration(req.providerConfigKey);
      const connectionId = req.connectionId || crypto.randomUUID();
      if (!CONNECTION_ID_RE.test(connectionId)) {
        throw errors.invalidField(
          "connection_id",
          "must be 1-255 printable ASCII characters, without leading or trailing spaces",
        );
      }
      const metadata = (req.metadata ?? {}) as Record<string, unknown>;
      validateMetadata(metadata);
      checkMetadataSize(metadata);
      const endUser = (req.endUser as Record<string, unknown> | undefined) ?? null;
      // Nango's import: tags derived from the end user, then end_user.tags, then tags (as a session's).
      const tags = tagsOf(endUser, req.tags);
      // An imported emailAddressHash may be Nango's formula: from now on, matching looks it up too.
      if (typeof req.connectionConfig?.emailAddressHash === "string" && !integ.importedEmailHashes) {
        await ctx.store.markImportedEmailHashes(env.id, integ.uniqueKey);
      }
      const creds = req.credentials;
      const expiresAt = creds && creds.expiresAtMs > 0n ? Number(creds.expiresAtMs) : null;
      const template = ctx.providers.get(integ.provider);
      const oauth = !creds || creds.type === "" || creds.type === "OAUTH2";
      // An API key or a password is checked against the provider's mode (nothing is written otherwise).
      if (creds && !oauth && !template)
        throw errors.unknownProvider(
          integ.provider,
          ctx.providers.list().map((p) => p.name),
        );
      if (oauth && creds && template && template.authMode !== "OAUTH2") {
        enteredCredentials(template, { type: "OAUTH2", apiKey: "", username: "", password: "" }, "credentials.");
      }
      const result = await saveConnection(ctx, {
        env,
        integ,
        connectionId,
        credentials: !creds
          ? null
          : oauth
            ? {
                type: "OAUTH2",
                accessToken: creds.accessToken,
                refreshToken: creds.refreshToken,
                expiresAt,
                raw: (creds.raw ?? {}) as JsonObject,
              }
            : enteredCredentials(template as ProviderAdapter, creds, "credentials."),
        connectionConfig: (req.connectionConfig ?? {}) as Record<string, unknown>,
        metadata,
        endUser,
        tags,
        webhookUrlOverride: req.webhookUrlOverride,
      });
      return { connection: present(result.connection), created: result.created };
    },

    async getConnection(req) {
      const loaded = await connection(req.providerConfigKey, req.connectionId);
      if (!req.includeCredentials) return { connection: present(loaded.rec) };
      if (!ctx.settings.credentialReads) throw errors.credentialReadsDisabled();
      // Refreshed as for the proxy (a token expiring within the margin first), as Nango does on this read.
      const { rec, creds } = await refresher.fresh(loaded, req.forceRefresh);
      return { connection: present(rec), credentials: creds ? toCredentials(creds) : undefined };
    },

    async listConnections(req) {
      const env = await ctx.environment();
      for (const key of new Set([req.providerConfigKey, ...req.providerConfigKeys].filter(Boolean))) {
        await integration(key);
      }
      const limit = req.limit === 0 ? 100 : req.limit;
      if (limit < 1 || limit > 2000) throw errors.invalidField("limit", "must be between 1 and 2000");
      if (req.page < 0) throw errors.invalidField("page", "must be 0 or more");
      const { connections, total } = await ctx.store.listConnections(env.id, {
        providerConfigKey: req.providerConfigKey || undefined,
        providerConfigKeys: req.providerConfigKeys.length > 0 ? req.providerConfigKeys : undefined,
        search: req.search || undefined,
        connectionId: req.connectionId || undefined,
        endUserId: req.endUserId || undefined,
        endUserEmail: req.endUserEmail || undefined,
        endUserDisplayName: req.endUserDisplayName || undefined,
        endUserOrganizationId: req.endUserOrganizationId || undefined,
        tags: Object.keys(req.tags).length > 0 ? req.tags : undefined,
        limit,
        offset: req.page * limit,
      });
      return { connections: connections.map(present), total };
    },

    // Nango's PATCH /connections/{id}: tags derive from the end user as on import; the webhook URL
    // override was checked by the caller ("" clears it).
    async updateConnection(req) {
      const { env, rec } = await connection(req.providerConfigKey, req.connectionId);
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
      return { connection: present(updated) };
    },

    async deleteConnection(req) {
      const { env, rec } = await connection(req.providerConfigKey, req.connectionId);
      await runPreDeletionScripts(ctx, rec.providerConfigKey, rec.connectionId);
      // spec: Events 3, pre-connection-deletion: announced before the record goes.
      await publish(subjects.connectionDeleting(rec.providerConfigKey), ConnectionDeletingSchema, {
        environmentId: env.id,
        providerConfigKey: rec.providerConfigKey,
        connectionId: rec.connectionId,
        provider: rec.provider,
        metadata: rec.metadata as JsonObject,
        atMs: BigInt(ctx.clock.now()),
      });
      // Keep this the last step before the record goes, after the pre-deletion scripts (which stop the
      // channels they know of): no channel may outlive its connection (spec: lifecycle, "A channel
      // that is not stopped when its connection is deleted may continue to send notifications").
      await ctx
        .stopChannels?.({
          environmentId: env.id,
          providerConfigKey: rec.providerConfigKey,
          connectionId: rec.connectionId,
        })
        .catch((err: unknown) =>
          ctx.logger.warn("channels of a deleted connection not stopped", {
            integration: rec.providerConfigKey,
            connectionId: rec.connectionId,
            error: err,
          }),
        );
      await ctx.store.deleteConnection(env.id, rec.providerConfigKey, rec.connectionId);
      ctx.logger.info("connection deleted", { integration: rec.providerConfigKey, connectionId: rec.connectionId });
      return {};
    },

    async writeMetadata(req) {
      const { env } = await integration(req.providerConfigKey);
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
        return { connections: recs.map(present) };
      } catch (err) {
        if (err instanceof UnknownConnectionsError)
          throw errors.unknownConnection(req.providerConfigKey, err.connectionIds);
        throw err;
      }
    },

    async getCredentials(req) {
      const loaded = await connection(req.providerConfigKey, req.connectionId);
      const template = ctx.providers.get(loaded.integ.provider);
      const { rec, creds } = await refresher.fresh(loaded, req.forceRefresh);
      // The proxy reads the upstream base URL here: the one of the client the token belongs to.
      let overrides = effectiveOverrides(
        ctx,
        loaded.integ,
        template,
        creds?.testCredentials === true,
        rec.connectionConfig,
      );
      // A base URL with a connection's placeholders ({instance_url}, {subdomain}) is answered filled,
      // where it came from: the operator's override stays one, the template's stays the provider's.
      const fill = (url: string) =>
        url.includes("{") ? connectionBaseUrl(loaded.integ, template, url, rec.connectionConfig) : url;
      if (overrides.baseUrl) overrides = { ...overrides, baseUrl: fill(overrides.baseUrl) };
      const provider = template ? toProvider({ ...template, baseUrl: fill(template.baseUrl) }) : undefined;
      return {
        connection: present(rec),
        credentials: creds ? toCredentials(creds) : undefined,
        integration: toIntegration({ ...loaded.integ, overrides }, ctx.baseUrl),
        provider,
        upstreamAuth: creds ? upstreamAuth(template, creds) : undefined,
      };
    },
  };
}

function toCredentials(creds: StoredCredentials) {
  return create(CredentialsSchema, {
    type: creds.type,
    accessToken: creds.accessToken,
    refreshToken: creds.refreshToken,
    expiresAtMs: BigInt(creds.expiresAt ?? 0),
    raw: creds.raw,
    apiKey: creds.apiKey ?? "",
    username: creds.username ?? "",
    password: creds.password ?? "",
  });
}

/**
 * spec: Events 3 and Errors 2: the pre-connection-deletion scripts run before the record goes, with
 * a deadline; whatever goes wrong (a script error, the deadline, the scripts service down) is logged
 * at error level and never blocks the deletion.
 */
async function runPreDeletionScripts(
  ctx: ConnectionServiceContext,
  providerConfigKey: string,
  connectionId: string,
): Promise<void> {
  if (!ctx.scripts) return;
  const fields = { integration: providerConfigKey, connectionId };
  try {
    const { runs } = await ctx.scripts.runLifecycleEvent(
      { event: LifecycleEvent.PRE_CONNECTION_DELETION, providerConfigKey, connectionId },
      { timeoutMs: ctx.scriptsDeadlineMs ?? 30_000 },
    );
    const failed = runs.filter((r) => r.status !== RunStatus.SUCCEEDED);
    if (failed.length > 0) {
      ctx.logger.error("pre-connection-deletion script failed; deleting the connection anyway", {
        ...fields,
        runs: failed.map((r) => ({ runId: r.id, script: r.scriptName, status: RunStatus[r.status] })),
      });
    }
  } catch (err) {
    ctx.logger.error("pre-connection-deletion scripts did not run; deleting the connection anyway", {
      ...fields,
      error: err,
    });
  }
}
