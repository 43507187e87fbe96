import { secretContext } from "@junction/platform";

/**
 * The rows the connection service's secrets are bound to (associated data of their encryption, issue
 * 25): a ciphertext copied into another row fails to decrypt there.
 */
export const secretContexts = {
  /** A connection's credentials: its environment, integration and connection id. */
  connectionCredentials: (row: { environmentId: string; providerConfigKey: string; connectionId: string }) =>
    secretContext("connection-credentials", row.environmentId, row.providerConfigKey, row.connectionId),
  /** An integration's OAuth client secret: its environment and integration. */
  integrationClientSecret: (environmentId: string, uniqueKey: string) =>
    secretContext("integration-client-secret", environmentId, uniqueKey),
  /** A PKCE verifier: the authorization attempt (its state's hash) it belongs to. */
  codeVerifier: (stateHash: string) => secretContext("oauth-code-verifier", stateHash),
};
