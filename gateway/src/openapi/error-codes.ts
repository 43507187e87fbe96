import { Code } from "@connectrpc/connect";
import { httpStatus } from "../http/error-response.ts";

/** A stable error code: the Connect code it travels as (its HTTP status follows the gateway's table), and what it means. */
interface ErrorCodeInfo {
  connect: Code;
  description: string;
}

const e = (connect: Code, description: string): ErrorCodeInfo => ({ connect, description });

/**
 * Every stable code a documented route may answer, for the OpenAPI document. A route's `doc.errors`
 * names its own; the common ones (auth, query and body checks, internal) are added by the document.
 */
export const ERROR_CODES = {
  // Common to every route, or to every route of a kind.
  missing_auth_header: e(Code.Unauthenticated, "No Authorization header: send `Bearer <secret key>`."),
  malformed_auth_header: e(Code.Unauthenticated, "The Authorization header is not `Bearer <secret key>`."),
  unknown_account: e(Code.Unauthenticated, "The secret key is not valid, or was revoked."),
  insufficient_scope: e(Code.PermissionDenied, "The secret key is limited to scopes that do not include this route's."),
  invalid_query_params: e(Code.InvalidArgument, "A query parameter is unknown or invalid; `errors` names each."),
  invalid_content_type: e(Code.InvalidArgument, "The body is not sent as `Content-Type: application/json`."),
  invalid_json: e(Code.InvalidArgument, "The body is not valid JSON."),
  invalid_body: e(Code.InvalidArgument, "A body field is missing, unknown or invalid; `errors` names each."),
  request_too_large: e(Code.InvalidArgument, "The body exceeds the route's limit."),
  invalid_request: e(Code.InvalidArgument, "A field was refused by the service; `errors` names it."),
  invalid_id: e(Code.InvalidArgument, "An id (in the path or a cursor) does not have its type's prefix."),
  service_unavailable: e(Code.Unavailable, "A service behind the gateway could not be reached; retry."),
  internal_error: e(Code.Internal, "An unexpected error; quote the request id (`X-Request-Id`) when reporting it."),
  // Answered by the gateway before any route.
  invalid_url: e(Code.InvalidArgument, "The request URL could not be parsed."),
  not_found: e(Code.NotFound, "No route for this method and path."),
  metrics_off: e(Code.NotFound, "Metrics are off: no JUNCTION_METRICS_TOKEN is configured."),
  metrics_token_required: e(Code.Unauthenticated, "/metrics takes the metrics token, not a secret key."),
  method_not_allowed: e(Code.InvalidArgument, "The path has routes, but not for this method (see `Allow`)."),
  // Integrations, connections, secret keys.
  unknown_provider: e(Code.InvalidArgument, "No provider template with this name (see GET /providers)."),
  unknown_provider_config: e(Code.NotFound, "No integration with this id."),
  private_address_not_allowed: e(
    Code.InvalidArgument,
    "The outbound address policy refused a URL Junction would fetch (an override, a provider definition's URL, a connection-config host, a URL setting, a webhook endpoint, the proxy's resolved upstream): a private or loopback host the operator did not allow (JUNCTION_ALLOWED_PRIVATE_HOSTS), a scheme other than http(s), or http where https is required; `errors` names the field. Nothing was saved or sent.",
  ),
  invalid_provider_setting: e(
    Code.InvalidArgument,
    "A `provider_settings` value that must be a URL (`pubsub_jwks_url`) is not an absolute URL; `errors` names it.",
  ),
  provider_is_built_in: e(
    Code.AlreadyExists,
    "POST /providers named a built-in provider: built-ins cannot be redefined over the API; define it under a new name.",
  ),
  stored_secret_unreadable: e(
    Code.DataLoss,
    "The connection's stored credentials do not decrypt for this row (copied from another row, altered, or their key was removed); the value is never shown.",
  ),
  unknown_provider_setting: e(
    Code.InvalidArgument,
    "`provider_settings` names a key the provider does not take; `errors` names it and the keys it takes.",
  ),
  managed_channels_unsupported: e(
    Code.InvalidArgument,
    "`managed_channels` is on, but Junction cannot create this provider's channels itself (see GET /providers).",
  ),
  integration_already_exists: e(Code.AlreadyExists, "An integration with this id already exists."),
  integration_has_connections: e(Code.FailedPrecondition, "The integration has connections; pass `force=true`."),
  unknown_connection: e(Code.NotFound, "No connection with this id for the integration."),
  invalid_cursor: e(
    Code.InvalidArgument,
    "The cursor is not one the route wrote: forged, altered, or another connection's model (GET /records).",
  ),
  connection_already_exists: e(Code.AlreadyExists, "A connection with this id already exists for the integration."),
  invalid_provider_definition: e(
    Code.InvalidArgument,
    "The provider definition is not JSON or breaks the definition schema; `errors` names each field. Nothing was stored.",
  ),
  invalid_metadata: e(Code.InvalidArgument, "A known metadata key has the wrong type; `errors` names it."),
  invalid_tags: e(
    Code.InvalidArgument,
    "A tag is malformed (key, value, not a string) or there are too many; `errors` names each.",
  ),
  unknown_secret_key: e(Code.NotFound, "No secret key with this id."),
  revoking_own_key: e(Code.FailedPrecondition, "The key would revoke itself; revoke it with another key."),
  credential_reads_disabled: e(
    Code.PermissionDenied,
    "The operator switched credential reads off (JUNCTION_CREDENTIAL_READS=false): use the proxy.",
  ),
  // Connect sessions and the OAuth flow.
  unknown_connect_session_token: e(Code.Unauthenticated, "The connect session token is unknown."),
  connect_session_expired: e(Code.Unauthenticated, "The connect session has expired."),
  override_not_allowed: e(Code.InvalidArgument, "`overrides` names an integration the session does not allow."),
  invalid_webhook_url: e(
    Code.InvalidArgument,
    "`webhook_url_override` is refused by the endpoints' rules (https; no private address unless the operator allows them).",
  ),
  integration_not_allowed: e(Code.PermissionDenied, "The connect session does not allow this integration."),
  integration_missing_credentials: e(Code.FailedPrecondition, "The integration has no OAuth client id and secret."),
  test_credentials_unavailable: e(Code.FailedPrecondition, "Test mode is on, but no test credentials are configured."),
  ws_client_id_in_use: e(
    Code.AlreadyExists,
    "The `ws_client_id` already waits for another connect session's authorization: open a new WebSocket.",
  ),
  invalid_auth_mode: e(Code.InvalidArgument, "The integration's provider does not authenticate this way."),
  // The proxy.
  invalid_headers: e(Code.InvalidArgument, "A control header is missing or invalid; `errors` names each."),
  unknown_mcp_server: e(Code.NotFound, "No MCP URL has this id, or it was revoked."),
  invalid_token: e(
    Code.Unauthenticated,
    "No access token for this MCP URL: missing, unknown, expired, revoked or issued for another resource (see `WWW-Authenticate`).",
  ),
  invalid_proxy_path: e(Code.InvalidArgument, "The upstream path is not allowed (e.g. it would leave the base URL)."),
  base_url_override_not_allowed: e(Code.InvalidArgument, "Base-Url-Override names a host that is not allowed."),
  integration_has_no_base_url: e(Code.FailedPrecondition, "The integration has no upstream base URL."),
  connection_has_no_credentials: e(Code.FailedPrecondition, "The connection has no upstream credentials."),
  connection_refresh_failed: e(Code.FailedPrecondition, "The connection's token could not be refreshed."),
  connection_refresh_busy: e(Code.Unavailable, "Another process is refreshing the token; retry."),
  // Auth modes other than the authorization-code flow.
  not_an_authorization_flow: e(
    Code.FailedPrecondition,
    "The integration's provider uses an API key, basic auth or client credentials: import the connection or use the connect page's form.",
  ),
  client_credentials_refused: e(
    Code.FailedPrecondition,
    "The provider's token endpoint gave no client-credentials token; the message says why (check the integration's client id and secret).",
  ),
  upstream_unreachable: e(Code.Unavailable, "The upstream could not be reached."),
  upstream_timeout: e(Code.DeadlineExceeded, "The upstream did not answer in time."),
  // Webhooks: settings, delivery log, inbound notifications.
  invalid_endpoint_url: e(Code.InvalidArgument, "An endpoint URL is refused; `errors` names each."),
  too_many_endpoints: e(Code.InvalidArgument, "Too many webhook endpoints."),
  invalid_grace_period: e(Code.InvalidArgument, "The grace period is out of range."),
  settings_conflict: e(Code.Aborted, "The settings were changed concurrently; retry."),
  unknown_message: e(Code.NotFound, "No webhook message with this id."),
  // The operations log.
  unknown_kind: e(Code.InvalidArgument, "`kind` is not one of the operation kinds; the message lists them."),
  unknown_status: e(Code.InvalidArgument, "`status` is not success, failed, refused or running."),
  search_too_long: e(Code.InvalidArgument, "`q` is longer than 256 characters."),
  invalid_period: e(Code.InvalidArgument, "`from` is not before `to`."),
  period_too_long: e(
    Code.InvalidArgument,
    "The period reaches further back than the log keeps (JUNCTION_LOGS_RETENTION_HOURS).",
  ),
  cursor_filter_mismatch: e(Code.InvalidArgument, "`cursor` was written for other filters: start again without it."),
  unknown_operation: e(Code.NotFound, "No operation with this id (it may be past the log's retention)."),
  unknown_endpoint: e(Code.NotFound, "No webhook endpoint with this id."),
  unknown_webhook_url: e(Code.NotFound, "No integration receives notifications at this URL."),
  invalid_notification: e(Code.InvalidArgument, "The notification's headers are not a valid notification."),
  headers_too_large: e(Code.InvalidArgument, "The notification has too many headers, or too many bytes of them."),
  channel_token_mismatch: e(Code.PermissionDenied, "The notification's channel token does not match; dropped."),
  unknown_channel: e(
    Code.NotFound,
    "The integration is strict (`strict_channels`) and its channel is unknown to the registry; dropped (a 4xx: the upstream does not resend it).",
  ),
  webhook_rate_limited: e(
    Code.Unavailable,
    "The integration receives notifications faster than its limit; nothing recorded. 503 with Retry-After: the upstream sends it again.",
  ),
  channel_rate_limited: e(
    Code.Unavailable,
    "The notification's channel receives them faster than its limit; nothing recorded. 503 with Retry-After.",
  ),
  webhook_backlog_full: e(
    Code.Unavailable,
    "The integration's pending work (notifications not processed, messages not delivered) is at its cap; nothing recorded. 503 with Retry-After.",
  ),
  // Channels.
  integration_has_no_channels: e(Code.FailedPrecondition, "The integration's provider has no notification channels."),
  channel_stops_unavailable: e(Code.Unavailable, "The channel service cannot call the upstream."),
  // Scripts.
  invalid_script: e(Code.InvalidArgument, "The script is refused; `errors` names the file, line and column."),
  invalid_cli_version: e(
    Code.InvalidArgument,
    "The nango CLI is older than Junction reads, or the project still has a nango.yaml; the message says what to do.",
  ),
  unknown_script: e(Code.NotFound, "No script with this name is deployed for the integration."),
  concurrent_deployment: e(
    Code.FailedPrecondition,
    "Another deploy of the environment (nango deploy, POST /scripts, a removal) is in progress; retry when it has ended.",
  ),
  unknown_run: e(Code.NotFound, "No script run with this id."),
  run_not_running: e(Code.FailedPrecondition, "The script run has ended; only a running run can be cancelled."),
  run_cancelled: e(Code.FailedPrecondition, "The action's run was cancelled (POST /scripts/runs/{id}/cancel)."),
  unknown_sync: e(Code.NotFound, "The integration has no deployed sync with this name."),
  invalid_frequency: e(Code.InvalidArgument, "The frequency is not one Junction reads (e.g. `every 30 minutes`)."),
  too_many_feeds: e(
    Code.ResourceExhausted,
    "The environment has as many change feeds open as allowed (JUNCTION_SCRIPTS_RECORD_FEEDS_MAX); close one or retry later.",
  ),
  script_runtime_busy: e(Code.ResourceExhausted, "Too many script runs are waiting; retry later."),
  missing_provider_config_key: e(Code.InvalidArgument, "No provider_config_key in the body nor the headers."),
  missing_connection_id: e(Code.InvalidArgument, "No connection_id in the body nor the headers."),
  // Actions.
  unknown_action: e(Code.NotFound, "The integration has no deployed action with this name."),
  invalid_action_input: e(
    Code.InvalidArgument,
    "The input does not match the action's input schema; `errors` names each.",
  ),
  unknown_action_run: e(Code.NotFound, "No action run with this id."),
  action_not_completed: e(Code.NotFound, "The action run has not ended yet; ask again."),
  // An action run that ended in failure: the error body has `run_id`, and `payload` (and `upstream`) as Nango's.
  action_script_runtime_error: e(Code.Internal, "The action threw an ActionError; its `payload` is in the body."),
  script_http_error: e(Code.FailedPrecondition, "An API call of the action failed and was not caught (`upstream`)."),
  script_internal_error: e(Code.Internal, "The action threw; `payload` has the error's name, message and stack."),
  execution_timeout: e(Code.DeadlineExceeded, "The action did not finish within its deadline."),
  execution_memory_exceeded: e(Code.Internal, "The action exceeded its memory limit."),
  execution_crashed: e(Code.Internal, "The action's sandbox died."),
  runtime_unavailable: e(Code.Unavailable, "The sandbox refused the run, nothing ran; retry."),
} satisfies Record<string, ErrorCodeInfo>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** Codes answered with a status of their own by an errorResponse or json call (inbound webhooks, actions). */
const FIXED_STATUS: Partial<Record<ErrorCode, number>> = {
  headers_too_large: 431,
  script_http_error: 424,
};

/** The HTTP status a code is answered with. */
export function statusOfCode(code: ErrorCode): number {
  return FIXED_STATUS[code] ?? httpStatus(code, ERROR_CODES[code].connect);
}
