import type { ProviderDefinitionRecord, ProviderDefinitionStore } from "./provider-definitions.ts";
import type { ConnectSessionRecord, OAuthStateRecord } from "./records.ts";
import type { ConsumedState, OAuthFlowStore } from "./store.ts";

/**
 * The OAuth-flow part of a connection service store (connect sessions, authorization states,
 * leases) and its providers defined over the API, answered by the stores it holds: the SQLite and
 * MongoDB stores extend this instead of forwarding each method by hand.
 */
export abstract class OAuthFlowDelegate implements OAuthFlowStore, ProviderDefinitionStore {
  protected abstract readonly oauth: OAuthFlowStore;
  protected abstract readonly definitions: ProviderDefinitionStore;

  putProviderDefinition(record: ProviderDefinitionRecord): Promise<boolean> {
    return this.definitions.putProviderDefinition(record);
  }

  listProviderDefinitions(): Promise<ProviderDefinitionRecord[]> {
    return this.definitions.listProviderDefinitions();
  }

  insertConnectSession(session: ConnectSessionRecord): Promise<void> {
    return this.oauth.insertConnectSession(session);
  }

  getConnectSessionByTokenHash(tokenHash: string): Promise<ConnectSessionRecord | null> {
    return this.oauth.getConnectSessionByTokenHash(tokenHash);
  }

  getConnectSession(id: string): Promise<ConnectSessionRecord | null> {
    return this.oauth.getConnectSession(id);
  }

  insertOAuthState(state: OAuthStateRecord): Promise<void> {
    return this.oauth.insertOAuthState(state);
  }

  consumeOAuthState(stateHash: string, at: number): Promise<ConsumedState | null> {
    return this.oauth.consumeOAuthState(stateHash, at);
  }

  claimAbandonedOAuthStates(now: number, limit: number): Promise<OAuthStateRecord[]> {
    return this.oauth.claimAbandonedOAuthStates(now, limit);
  }

  purgeOAuthFlow(before: number): Promise<void> {
    return this.oauth.purgeOAuthFlow(before);
  }

  acquireLease(key: string, holder: string, now: number, expiresAt: number): Promise<boolean> {
    return this.oauth.acquireLease(key, holder, now, expiresAt);
  }

  releaseLease(key: string, holder: string): Promise<void> {
    return this.oauth.releaseLease(key, holder);
  }
}
