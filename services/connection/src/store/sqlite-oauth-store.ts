import type { Database } from "bun:sqlite";
import type { ConnectSessionRecord, OAuthStateRecord } from "./records.ts";
import type { Params, Query } from "./sqlite-statements.ts";
import type { ConsumedState, OAuthFlowStore } from "./store.ts";

interface SessionRow {
  id: string;
  environment_id: string;
  token_hash: string;
  end_user: string;
  organization: string | null;
  allowed_integrations: string;
  integrations_config_defaults: string;
  overrides: string;
  tags: string;
  /** '' when none. */
  webhook_url_override: string;
  reconnect: string | null;
  created_at: number;
  expires_at: number;
}

interface StateRow {
  state_hash: string;
  environment_id: string;
  session_id: string;
  provider_config_key: string;
  connection_id: string;
  code_verifier_enc: string;
  redirect_uri: string;
  scopes: string;
  test_credentials: number;
  connection_config: string;
  created_at: number;
  expires_at: number;
  consumed_at: number | null;
  opener_origin: string;
  ws_client_id: string;
  abandoned: number;
}

const sessionFromRow = (r: SessionRow): ConnectSessionRecord => ({
  id: r.id,
  environmentId: r.environment_id,
  tokenHash: r.token_hash,
  endUser: JSON.parse(r.end_user),
  organization: r.organization === null ? null : JSON.parse(r.organization),
  allowedIntegrations: JSON.parse(r.allowed_integrations),
  integrationsConfigDefaults: JSON.parse(r.integrations_config_defaults),
  overrides: JSON.parse(r.overrides),
  tags: JSON.parse(r.tags),
  ...(r.webhook_url_override ? { webhookUrlOverride: r.webhook_url_override } : {}),
  reconnect: r.reconnect === null ? null : JSON.parse(r.reconnect),
  createdAt: r.created_at,
  expiresAt: r.expires_at,
});

const stateFromRow = (r: StateRow): OAuthStateRecord => ({
  stateHash: r.state_hash,
  environmentId: r.environment_id,
  sessionId: r.session_id,
  providerConfigKey: r.provider_config_key,
  connectionId: r.connection_id,
  codeVerifierEnc: r.code_verifier_enc,
  redirectUri: r.redirect_uri,
  scopes: JSON.parse(r.scopes),
  testCredentials: r.test_credentials !== 0,
  connectionConfig: JSON.parse(r.connection_config),
  createdAt: r.created_at,
  expiresAt: r.expires_at,
  consumedAt: r.consumed_at,
  ...(r.opener_origin ? { openerOrigin: r.opener_origin } : {}),
  ...(r.ws_client_id ? { wsClientId: r.ws_client_id } : {}),
  ...(r.abandoned ? { abandoned: true as const } : {}),
});

/**
 * Connect sessions, single-use states and leases in SQLite (tables of migration 2). Every
 * compare-and-set is one statement, so it is atomic across processes sharing the file.
 */
export class SqliteOAuthFlowStore implements OAuthFlowStore {
  private readonly q;

  constructor(db: Database) {
    const p = <R = unknown>(sql: string): Query<R> => db.prepare<R, [Params]>(sql);
    this.q = {
      sessionInsert: p(
        "INSERT INTO connect_sessions (id, environment_id, token_hash, end_user, organization, allowed_integrations, integrations_config_defaults, overrides, tags, webhook_url_override, reconnect, created_at, expires_at) VALUES ($id, $environment_id, $token_hash, $end_user, $organization, $allowed_integrations, $integrations_config_defaults, $overrides, $tags, $webhook_url_override, $reconnect, $created_at, $expires_at)",
      ),
      sessionByToken: p<SessionRow>("SELECT * FROM connect_sessions WHERE token_hash = $token_hash"),
      sessionById: p<SessionRow>("SELECT * FROM connect_sessions WHERE id = $id"),
      stateInsert: p(
        "INSERT INTO oauth_states (state_hash, environment_id, session_id, provider_config_key, connection_id, code_verifier_enc, redirect_uri, scopes, test_credentials, connection_config, created_at, expires_at, consumed_at, opener_origin, ws_client_id) VALUES ($state_hash, $environment_id, $session_id, $provider_config_key, $connection_id, $code_verifier_enc, $redirect_uri, $scopes, $test_credentials, $connection_config, $created_at, $expires_at, NULL, $opener_origin, $ws_client_id)",
      ),
      stateConsume: p<StateRow>(
        "UPDATE oauth_states SET consumed_at = $at WHERE state_hash = $state_hash AND consumed_at IS NULL RETURNING *",
      ),
      stateGet: p<StateRow>("SELECT * FROM oauth_states WHERE state_hash = $state_hash"),
      // One statement: the rows it picks are used by it alone, whatever other process sweeps the same file.
      statesClaimAbandoned: p<StateRow>(
        "UPDATE oauth_states SET consumed_at = $now, abandoned = 1 WHERE state_hash IN (SELECT state_hash FROM oauth_states WHERE consumed_at IS NULL AND expires_at <= $now ORDER BY expires_at LIMIT $limit) AND consumed_at IS NULL RETURNING *",
      ),
      statesPurge: p("DELETE FROM oauth_states WHERE expires_at < $before"),
      sessionsPurge: p("DELETE FROM connect_sessions WHERE expires_at < $before"),
      // The conflict branch runs only when the stored lease expired or is already this holder's.
      leaseAcquire: p(
        "INSERT INTO leases (lease_key, holder, expires_at) VALUES ($lease_key, $holder, $expires_at) ON CONFLICT (lease_key) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at WHERE leases.expires_at <= $now OR leases.holder = excluded.holder",
      ),
      leasesPurge: p("DELETE FROM leases WHERE expires_at < $before"),
      leaseRelease: p("DELETE FROM leases WHERE lease_key = $lease_key AND holder = $holder"),
    };
  }

  /** Finalizes the prepared statements (the database is closed by its owner). */
  finalize(): void {
    for (const s of Object.values(this.q)) s.finalize();
  }

  async insertConnectSession(s: ConnectSessionRecord): Promise<void> {
    this.q.sessionInsert.run({
      id: s.id,
      environment_id: s.environmentId,
      token_hash: s.tokenHash,
      end_user: JSON.stringify(s.endUser),
      organization: s.organization === null ? null : JSON.stringify(s.organization),
      allowed_integrations: JSON.stringify(s.allowedIntegrations),
      integrations_config_defaults: JSON.stringify(s.integrationsConfigDefaults),
      overrides: JSON.stringify(s.overrides),
      tags: JSON.stringify(s.tags),
      webhook_url_override: s.webhookUrlOverride ?? "",
      reconnect: s.reconnect === null ? null : JSON.stringify(s.reconnect),
      created_at: s.createdAt,
      expires_at: s.expiresAt,
    });
  }

  async getConnectSessionByTokenHash(tokenHash: string): Promise<ConnectSessionRecord | null> {
    const row = this.q.sessionByToken.get({ token_hash: tokenHash });
    return row ? sessionFromRow(row) : null;
  }

  async getConnectSession(id: string): Promise<ConnectSessionRecord | null> {
    const row = this.q.sessionById.get({ id });
    return row ? sessionFromRow(row) : null;
  }

  async insertOAuthState(s: OAuthStateRecord): Promise<void> {
    this.q.stateInsert.run({
      state_hash: s.stateHash,
      environment_id: s.environmentId,
      session_id: s.sessionId,
      provider_config_key: s.providerConfigKey,
      connection_id: s.connectionId,
      code_verifier_enc: s.codeVerifierEnc,
      redirect_uri: s.redirectUri,
      scopes: JSON.stringify(s.scopes),
      test_credentials: s.testCredentials ? 1 : 0,
      connection_config: JSON.stringify(s.connectionConfig),
      created_at: s.createdAt,
      expires_at: s.expiresAt,
      opener_origin: s.openerOrigin ?? "",
      ws_client_id: s.wsClientId ?? "",
    });
  }

  async consumeOAuthState(stateHash: string, at: number): Promise<ConsumedState | null> {
    const first = this.q.stateConsume.get({ state_hash: stateHash, at });
    if (first) return { state: stateFromRow(first), alreadyUsed: false };
    const used = this.q.stateGet.get({ state_hash: stateHash });
    return used ? { state: stateFromRow(used), alreadyUsed: true } : null;
  }

  async claimAbandonedOAuthStates(now: number, limit: number): Promise<OAuthStateRecord[]> {
    const rows = this.q.statesClaimAbandoned.all({ now, limit });
    // RETURNING gives the rows in no set order: oldest expiry first, as MongoDB's claims come.
    return rows.sort((a, b) => a.expires_at - b.expires_at).map(stateFromRow);
  }

  async purgeOAuthFlow(before: number): Promise<void> {
    this.q.statesPurge.run({ before });
    this.q.sessionsPurge.run({ before });
    this.q.leasesPurge.run({ before });
  }

  async acquireLease(key: string, holder: string, now: number, expiresAt: number): Promise<boolean> {
    return this.q.leaseAcquire.run({ lease_key: key, holder, now, expires_at: expiresAt }).changes === 1;
  }

  async releaseLease(key: string, holder: string): Promise<void> {
    this.q.leaseRelease.run({ lease_key: key, holder });
  }
}
