import { create } from "@bufbuild/protobuf";
import { CredentialsSchema } from "@junction/contracts/connection/v1/connection_service_pb";
import type { ConnectionServiceContext } from "../../context.ts";
import type { StoredCredentials } from "../../credentials.ts";
import { errors } from "../../errors.ts";
import { toConnection } from "../../mappers.ts";
import { sessionTags } from "../../oauth/session-tags.ts";
import type { ConnectionRecord, EnvironmentRecord, IntegrationRecord } from "../../store/records.ts";
import { integrationOrRefuse } from "../integration-or-refuse.ts";

/** What the connection RPCs look up first: the environment and the named integration. */
export async function lookupIntegration(
  ctx: ConnectionServiceContext,
  key: string,
): Promise<{ env: EnvironmentRecord; rec: IntegrationRecord }> {
  const env = await ctx.environment();
  if (!key) throw errors.invalidField("provider_config_key", "is required");
  return { env, rec: await integrationOrRefuse(ctx, env.id, key) };
}

/** The named connection of the named integration, or `unknown_connection`. */
export async function lookupConnection(
  ctx: ConnectionServiceContext,
  key: string,
  connectionId: string,
): Promise<{ env: EnvironmentRecord; integ: IntegrationRecord; rec: ConnectionRecord }> {
  const { env, rec: integ } = await lookupIntegration(ctx, key);
  if (!connectionId) throw errors.invalidField("connection_id", "is required");
  const rec = await ctx.store.getConnection(env.id, key, connectionId);
  if (!rec) throw errors.unknownConnection(key, [connectionId]);
  return { env, integ, rec };
}

/** A connection as answered: its credentials are of its provider's auth mode. */
export function presentConnection(ctx: ConnectionServiceContext, rec: ConnectionRecord) {
  return toConnection(rec, ctx.providers.get(rec.provider)?.authMode);
}

/** A connection's tags: derived from the end user (and its organization), then end_user.tags, then `tags`. */
export function tagsOf(endUser: Record<string, unknown> | null, tags: Record<string, string>): Record<string, string> {
  const organization = endUser?.organization;
  const org =
    typeof organization === "object" && organization !== null ? (organization as Record<string, unknown>) : null;
  return sessionTags(endUser, org, endUser?.tags, tags);
}

/** Stored credentials as the Credentials message. */
export function toCredentials(creds: StoredCredentials) {
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
