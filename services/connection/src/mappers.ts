import { create, type JsonObject } from "@bufbuild/protobuf";
import {
  type Connection,
  ConnectionSchema,
  type Integration,
  IntegrationSchema,
  type Provider,
  ProviderSchema,
  SecretKeySchema,
  type SecretKey,
  UpstreamOverridesSchema,
} from "@junction/contracts/connection/v1/connection_service_pb";
import type { ProviderTemplate } from "@junction/providers";
import type { ConnectionRecord, IntegrationRecord, SecretKeyRecord } from "./store/records.ts";

/** The integration's webhook URL (Nango's shape): {base_url}/webhook/{environment id}/{integration id}. */
export function webhookUrl(baseUrl: string, environmentId: string, uniqueKey: string): string {
  return `${baseUrl.replace(/\/+$/, "")}/webhook/${environmentId}/${encodeURIComponent(uniqueKey)}`;
}

export function toIntegration(rec: IntegrationRecord, baseUrl: string): Integration {
  return create(IntegrationSchema, {
    uniqueKey: rec.uniqueKey,
    provider: rec.provider,
    displayName: rec.displayName,
    clientId: rec.clientId,
    hasClientSecret: rec.clientSecretEnc !== null,
    scopes: rec.scopes,
    webhookUrl: webhookUrl(baseUrl, rec.environmentId, rec.uniqueKey),
    overrides: create(UpstreamOverridesSchema, {
      baseUrl: rec.overrides.baseUrl ?? "",
      authorizationUrl: rec.overrides.authorizationUrl ?? "",
      tokenUrl: rec.overrides.tokenUrl ?? "",
    }),
    createdAtMs: BigInt(rec.createdAt),
    updatedAtMs: BigInt(rec.updatedAt),
    forwardWebhooks: rec.forwardWebhooks,
    useTestCredentials: rec.useTestCredentials,
    providerSettings: rec.providerSettings ?? {},
    managedChannels: rec.managedChannels ?? false,
    strictChannels: rec.strictChannels ?? rec.managedChannels ?? false,
  });
}

/** `credentialsType`: the provider's auth mode (what its credentials are). */
export function toConnection(rec: ConnectionRecord, credentialsType = "OAUTH2"): Connection {
  return create(ConnectionSchema, {
    id: rec.id,
    connectionId: rec.connectionId,
    providerConfigKey: rec.providerConfigKey,
    provider: rec.provider,
    connectionConfig: rec.connectionConfig as JsonObject,
    metadata: rec.metadata as JsonObject,
    createdAtMs: BigInt(rec.createdAt),
    updatedAtMs: BigInt(rec.updatedAt),
    errors: rec.errors.map((e) => ({
      type: e.type,
      message: e.message,
      atMs: BigInt(e.at),
      upstreamError: e.upstreamError ?? "",
      upstreamErrorDescription: e.upstreamErrorDescription ?? "",
      retryAfterMs: BigInt(e.retryAfter ?? 0),
    })),
    credentialsExpiresAtMs: BigInt(rec.credentialsExpiresAt ?? 0),
    endUser: (rec.endUser ?? undefined) as JsonObject | undefined,
    tags: rec.tags,
    webhookUrlOverride: rec.webhookUrlOverride ?? "",
    credentialsType,
  });
}

export function toProvider(t: ProviderTemplate): Provider {
  return create(ProviderSchema, {
    name: t.name,
    displayName: t.displayName,
    baseUrl: t.baseUrl,
    authorizationUrl: t.authorizationUrl,
    tokenUrl: t.tokenUrl,
    authorizationParams: t.authorizationParams,
    scopes: t.scopes.map((s) => ({ ...s, sensitivity: s.sensitivity ?? "" })),
    defaultScopes: t.defaultScopes,
    webhookHeaders: t.webhookHeaders ? { ...t.webhookHeaders } : {},
    allowedOverrideHosts: t.allowedOverrideHosts,
    storesEmailHash: t.storesEmailHash,
    authMode: t.authMode,
    docsUrl: t.docsUrl,
    connectFields: t.connectFields.map((f) => ({
      key: f.key,
      label: f.label,
      docsUrl: f.docsUrl ?? "",
      secret: f.secret,
    })),
  });
}

export function toSecretKey(rec: SecretKeyRecord): SecretKey {
  return create(SecretKeySchema, {
    id: rec.id,
    name: rec.name,
    prefix: rec.prefix,
    createdAtMs: BigInt(rec.createdAt),
    revokedAtMs: BigInt(rec.revokedAt ?? 0),
    scopes: rec.scopes,
    lastUsedAtMs: BigInt(rec.lastUsedAt ?? 0),
  });
}
