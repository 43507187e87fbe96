import type { JsonObject } from "@bufbuild/protobuf";
import type { CreateConnectionRequest } from "@junction/contracts/connection/v1/connection_service_pb";
import type { ProviderAdapter } from "@junction/providers";
import type { ConnectionServiceContext } from "../../context.ts";
import { enteredCredentials } from "../../entered-credentials.ts";
import { errors } from "../../errors.ts";
import { checkMetadataSize, validateMetadata } from "../../metadata-rules.ts";
import { saveConnection } from "../../save-connection.ts";
import type { IntegrationRecord } from "../../store/records.ts";
import { lookupIntegration, presentConnection, tagsOf } from "./connection-lookup.ts";

/** Printable ASCII, no leading or trailing space, at most 255 characters (a superset of Nango's). */
const CONNECTION_ID_RE = /^[!-~](?:[ -~]{0,253}[!-~])?$/;

/** CreateConnection: Nango's import of a connection (POST /connections), credentials of the provider's mode. */
export async function createConnection(ctx: ConnectionServiceContext, req: CreateConnectionRequest) {
  const { env, rec: integ } = await lookupIntegration(ctx, req.providerConfigKey);
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
  // An imported emailAddressHash may be Nango's formula: from now on, matching looks it up too.
  if (typeof req.connectionConfig?.emailAddressHash === "string" && !integ.importedEmailHashes) {
    await ctx.store.markImportedEmailHashes(env.id, integ.uniqueKey);
  }
  const result = await saveConnection(ctx, {
    env,
    integ,
    connectionId,
    credentials: importedCredentials(ctx, integ, req.credentials),
    connectionConfig: (req.connectionConfig ?? {}) as Record<string, unknown>,
    metadata,
    endUser,
    // Nango's import: tags derived from the end user, then end_user.tags, then tags (as a session's).
    tags: tagsOf(endUser, req.tags),
    webhookUrlOverride: req.webhookUrlOverride,
  });
  return { connection: presentConnection(ctx, result.connection), created: result.created };
}

/**
 * The credentials of an import as stored: OAuth tokens as given, an API key or a password checked against the
 * provider's auth mode (nothing is written otherwise). None: a connection without credentials.
 */
function importedCredentials(
  ctx: ConnectionServiceContext,
  integ: IntegrationRecord,
  creds: CreateConnectionRequest["credentials"],
) {
  if (!creds) return null;
  const template = ctx.providers.get(integ.provider);
  const oauth = creds.type === "" || creds.type === "OAUTH2";
  if (!oauth && !template) {
    throw errors.unknownProvider(
      integ.provider,
      ctx.providers.list().map((p) => p.name),
    );
  }
  if (oauth && template && template.authMode !== "OAUTH2") {
    enteredCredentials(template, { type: "OAUTH2", apiKey: "", username: "", password: "" }, "credentials.");
  }
  if (!oauth) return enteredCredentials(template as ProviderAdapter, creds, "credentials.");
  return {
    type: "OAUTH2" as const,
    accessToken: creds.accessToken,
    refreshToken: creds.refreshToken,
    expiresAt: creds.expiresAtMs > 0n ? Number(creds.expiresAtMs) : null,
    raw: (creds.raw ?? {}) as JsonObject,
  };
}
