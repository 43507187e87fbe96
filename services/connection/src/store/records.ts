/** Stored shapes of the connection service's domain. Times are Unix milliseconds. */

export interface EnvironmentRecord {
  id: string;
  name: string;
  createdAt: number;
}

export interface SecretKeyRecord {
  id: string;
  environmentId: string;
  name: string;
  /** First characters of the plaintext, to recognise a key in a list. */
  prefix: string;
  /** SHA-256 hex of the plaintext; the plaintext is never stored. */
  hash: string;
  createdAt: number;
  revokedAt: number | null;
  /** The scopes the key is limited to; empty: full access. */
  scopes: string[];
  /** When the key last authenticated a request (verification), or null. */
  lastUsedAt: number | null;
}

export interface UpstreamOverridesRecord {
  baseUrl?: string;
  authorizationUrl?: string;
  tokenUrl?: string;
}

export interface IntegrationRecord {
  environmentId: string;
  /** The integration id (provider config key); unique per environment. */
  uniqueKey: string;
  provider: string;
  displayName: string;
  clientId: string;
  /** Encrypted client secret (Encryptor envelope), null when none was given. */
  clientSecretEnc: string | null;
  scopes: string[];
  overrides: UpstreamOverridesRecord;
  forwardWebhooks: boolean;
  /** New authorizations use the operator's test credentials (spec: Authentication 4). */
  useTestCredentials: boolean;
  /** The provider's own settings (its adapter's `integrationSettings` keys), as the operator set them. */
  providerSettings?: Record<string, string>;
  /** Junction creates, renews and stops this integration's channels itself; absent is off. */
  managedChannels?: boolean;
  /**
   * Intake refuses notifications whose channel the registry does not hold for this integration; absent
   * (never set) follows `managedChannels`.
   */
  strictChannels?: boolean;
  /**
   * Set (for good) once a connection was imported with its own connection_config.emailAddressHash,
   * which may be Nango's formula: only then does matching also look Nango's formula up.
   */
  importedEmailHashes?: true;
  createdAt: number;
  updatedAt: number;
}

export interface ConnectionErrorRecord {
  type: string;
  message: string;
  at: number;
  /** The upstream's OAuth error code, or how the call failed (timeout...). */
  upstreamError?: string;
  upstreamErrorDescription?: string;
  /** Calls fail fast until then instead of retrying upstream (refresh failures). */
  retryAfter?: number;
}

export interface ConnectionRecord {
  /** Internal prefixed id (conn_...), stable across re-authorizations. */
  id: string;
  environmentId: string;
  providerConfigKey: string;
  /** The customer-facing connection id; unique per (environment, integration). */
  connectionId: string;
  provider: string;
  /** Encrypted credentials JSON (Encryptor envelope). */
  credentialsEnc: string | null;
  credentialsExpiresAt: number | null;
  connectionConfig: Record<string, unknown>;
  metadata: Record<string, unknown>;
  endUser: Record<string, unknown> | null;
  errors: ConnectionErrorRecord[];
  /** Nango's tags: lower-case keys, string values (from the connect session that created it). */
  tags: Record<string, string>;
  /**
   * Nango's webhook_url_override: this connection's webhooks go to this URL instead of the
   * environment's endpoints. Absent when none; kept on re-authorization unless a new one is given.
   */
  webhookUrlOverride?: string;
  createdAt: number;
  updatedAt: number;
}

/** Filter and page for listing connections. */
export interface ConnectionFilter {
  providerConfigKey?: string;
  /** Any of these integrations (Nango's comma-separated integrationId); with providerConfigKey, both apply. */
  providerConfigKeys?: string[];
  /** Substring of the connection id (case-insensitive). */
  search?: string;
  connectionId?: string;
  endUserId?: string;
  /** Exact values of the end user's profile (Nango's end_user_* tags and endUserOrganizationId). */
  endUserEmail?: string;
  endUserDisplayName?: string;
  endUserOrganizationId?: string;
  /** Every one of these tags (keys lower-case) must be on the connection. */
  tags?: Record<string, string>;
  limit: number;
  offset: number;
}

export type MetadataMode = "set" | "update";

/** Fields of a connection that may be patched after creation. */
export type ConnectionPatch = Partial<
  Pick<ConnectionRecord, "credentialsEnc" | "credentialsExpiresAt" | "connectionConfig" | "errors" | "endUser" | "tags">
> & {
  /** A URL sets the webhook URL override, null clears it. */
  webhookUrlOverride?: string | null;
};

/** A connect session (Nango's): lets one end user's browser start authorizations for a while. */
export interface ConnectSessionRecord {
  /** Prefixed id (sess_...). */
  id: string;
  environmentId: string;
  /** SHA-256 hex of the token; the token itself is never stored. */
  tokenHash: string;
  /** null when the session was created with tags and no end user (Nango allows it). */
  endUser: Record<string, unknown> | null;
  organization: Record<string, unknown> | null;
  /** Integration ids it may connect; empty means all. */
  allowedIntegrations: string[];
  integrationsConfigDefaults: Record<string, IntegrationConfigDefaultsRecord>;
  /** Overrides per integration id (each an allowed integration). */
  overrides: Record<string, ConnectSessionOverrideRecord>;
  /** Tags of the connection it creates (or re-authorizes, replacing its tags when not empty). */
  tags: Record<string, string>;
  /** The webhook URL override of the connection it creates or re-authorizes; absent when none. */
  webhookUrlOverride?: string;
  /** Set for a reconnect session: the connection it re-authorizes. */
  reconnect: { providerConfigKey: string; connectionId: string } | null;
  createdAt: number;
  expiresAt: number;
}

export interface IntegrationConfigDefaultsRecord {
  userScopes: string[];
  authorizationParams: Record<string, string>;
  connectionConfig: Record<string, unknown>;
}

/** A session's override for one integration: replaces or extends its defaults. */
export interface ConnectSessionOverrideRecord {
  docsConnect?: string;
  /** Replaces the defaults' scopes when given. */
  userScopes?: string[];
  authorizationParams?: Record<string, string>;
  connectionConfig?: Record<string, unknown>;
}

/** One authorization attempt, found by its single-use state (spec: Authentication 2). */
export interface OAuthStateRecord {
  /** SHA-256 hex of the state sent upstream. */
  stateHash: string;
  environmentId: string;
  sessionId: string;
  providerConfigKey: string;
  /** The connection this attempt creates or re-authorizes. */
  connectionId: string;
  /** The PKCE verifier, encrypted (Encryptor envelope). */
  codeVerifierEnc: string;
  redirectUri: string;
  scopes: string[];
  /** Whether the operator's test credentials were used to start it (the code belongs to that client). */
  testCredentials: boolean;
  /** What the user typed on the connect page's form (an OAUTH2 provider's connect fields: a subdomain), for the callback. */
  connectionConfig: Record<string, string>;
  createdAt: number;
  expiresAt: number;
  /** When the callback used it (or the sweep that found it abandoned); null while unused. */
  consumedAt: number | null;
  /** Set when it expired unused and the sweep recorded its attempt as abandoned (it is then used). */
  abandoned?: true;
  /**
   * The origin (scheme://host[:port]) of the page that started it: the callback page posts its result
   * to this origin only. Absent when unknown: then only to the gateway's own origin.
   */
  openerOrigin?: string;
  /** The frontend SDK's WebSocket waiting for the result (Nango's ws_client_id); absent when none. */
  wsClientId?: string;
}
