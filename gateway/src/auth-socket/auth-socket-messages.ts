import { AuthorizationOutcome } from "@junction/contracts/connection/v1/connection_service_pb";

// The messages Nango's server sends on the frontend SDK's WebSocket (@nangohq/types'
// WebSocketConnectionAck, ...ResponseSuccess and ...Error), as JSON text.

/** The first message: the socket's id, which the SDK then passes to /oauth/connect as ws_client_id. */
export function connectionAck(wsClientId: string): string {
  return JSON.stringify({ message_type: "connection_ack", ws_client_id: wsClientId });
}

/** The connection was created (or re-authorized): `auth()` resolves with it. */
export function successMessage(providerConfigKey: string, connectionId: string): string {
  return JSON.stringify({
    message_type: "success",
    provider_config_key: providerConfigKey,
    connection_id: connectionId,
    is_pending: false,
  });
}

/** The authorization failed: `auth()` rejects with an AuthError of `errorType`. No connection is named. */
export function errorMessage(providerConfigKey: string, errorType: string, description: string): string {
  return JSON.stringify({
    message_type: "error",
    provider_config_key: providerConfigKey,
    error_type: errorType,
    error_desc: description,
  });
}

/** Nango's error type (its web-socket-error.ts) for each way an authorization ends other than connected. */
const ERROR_TYPES: Record<AuthorizationOutcome, string> = {
  [AuthorizationOutcome.UNSPECIFIED]: "unknown_err",
  [AuthorizationOutcome.CONNECTED]: "",
  [AuthorizationOutcome.MISSING_STATE]: "state_err",
  [AuthorizationOutcome.UNKNOWN_STATE]: "state_err",
  [AuthorizationOutcome.STATE_ALREADY_USED]: "state_err",
  [AuthorizationOutcome.AUTHORIZATION_EXPIRED]: "state_err",
  [AuthorizationOutcome.CONNECT_SESSION_EXPIRED]: "state_err",
  // A declined consent or another error= on the callback: "Did not get authorization code in the callback".
  [AuthorizationOutcome.ACCESS_DENIED]: "callback_err",
  [AuthorizationOutcome.UPSTREAM_ERROR]: "callback_err",
  [AuthorizationOutcome.MISSING_CODE]: "callback_err",
  [AuthorizationOutcome.TOKEN_EXCHANGE_REFUSED]: "token_err",
  [AuthorizationOutcome.TOKEN_ENDPOINT_TIMEOUT]: "token_err",
  [AuthorizationOutcome.TOKEN_ENDPOINT_INVALID_RESPONSE]: "token_err",
  [AuthorizationOutcome.TOKEN_ENDPOINT_UNREACHABLE]: "token_err",
  [AuthorizationOutcome.CONFIGURATION_ERROR]: "provider_config_err",
};

/** Refusals of a start that did not bind the socket to the session: nothing is told to the socket then. */
const UNBOUND = new Set([
  "unknown_connect_session_token",
  "connect_session_expired",
  "ws_client_id_in_use",
  "invalid_query_params",
  // The connection service may not have been reached.
  "internal_error",
  "service_unavailable",
]);

/** Nango's type for a refused start, where it has one; Junction's code otherwise. */
const START_ERROR_TYPES: Record<string, string> = {
  unknown_provider_config: "provider_config_err",
  integration_missing_credentials: "provider_config_err",
  test_credentials_unavailable: "provider_config_err",
};

/**
 * The socket message for a refused start (/oauth/connect), or undefined when the refusal came before the
 * id was bound to the session (then the socket may be someone else's and hears nothing).
 */
export function startErrorMessage(
  providerConfigKey: string,
  err: { code: string; message: string; errors: { path: string }[] },
): string | undefined {
  if (UNBOUND.has(err.code) || err.errors.some((e) => e.path === "ws_client_id")) return undefined;
  return errorMessage(providerConfigKey, START_ERROR_TYPES[err.code] ?? err.code, err.message);
}

/** The socket message for how an authorization ended. */
export function outcomeMessage(res: {
  outcome: AuthorizationOutcome;
  providerConfigKey: string;
  connectionId: string;
  message: string;
}): string {
  if (res.outcome === AuthorizationOutcome.CONNECTED) return successMessage(res.providerConfigKey, res.connectionId);
  return errorMessage(res.providerConfigKey, ERROR_TYPES[res.outcome] ?? "unknown_err", res.message);
}
