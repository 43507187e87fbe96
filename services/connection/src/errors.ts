import { Code } from "@connectrpc/connect";
import {
  alreadyExists,
  failedPrecondition,
  invalidArgument,
  JunctionError,
  notFound,
  type FieldError,
  unauthenticated,
} from "@junction/platform";

/** The connection service's domain errors; the error boundary maps them to Connect codes. */
export const errors = {
  unknownProviderConfig: (key: string) =>
    notFound(
      "unknown_provider_config",
      `No integration with id "${key}" (sent as Provider-Config-Key / provider_config_key).`,
    ),
  unknownConnection: (key: string, ids: string[]) =>
    notFound(
      "unknown_connection",
      ids.length === 1
        ? `No connection "${ids[0]}" for integration "${key}".`
        : `No connections ${ids.map((i) => `"${i}"`).join(", ")} for integration "${key}". Nothing was changed.`,
    ),
  unknownProvider: (name: string, known: string[]) =>
    invalidArgument("unknown_provider", `Unknown provider "${name}". Known providers: ${known.join(", ")}.`, [
      { path: "provider", message: `must be one of ${known.join(", ")}` },
    ]),
  invalidProviderDefinition: (provider: string, message: string, fieldErrors: FieldError[]) =>
    invalidArgument(
      "invalid_provider_definition",
      `${message} Nothing was stored.`,
      // A definition only ever arrives as the body of the request that defines it.
      fieldErrors.map((e) => ({ ...e, location: "body", message: `${e.message} (provider "${provider}")` })),
    ),
  integrationExists: (key: string) =>
    alreadyExists("integration_already_exists", `An integration with id "${key}" already exists.`),
  integrationHasConnections: (key: string, count: number) =>
    failedPrecondition(
      "integration_has_connections",
      `Integration "${key}" has ${count} connection(s); delete them first or pass force=true to delete them with it.`,
    ),
  invalidMetadata: (fieldErrors: FieldError[]) =>
    invalidArgument(
      "invalid_metadata",
      `Invalid metadata: ${fieldErrors.map((e) => `${e.path} ${e.message}`).join("; ")}.`,
      fieldErrors,
    ),
  privateAddressNotAllowed: (path: string, host: string) =>
    invalidArgument(
      "private_address_not_allowed",
      `${path} points at ${host}, a private or loopback address. Nothing was saved. Only the operator can allow such a host (JUNCTION_ALLOWED_PRIVATE_HOSTS).`,
      [{ path, message: `must not point at a private or loopback address (${host}) unless the operator allows it` }],
    ),
  invalidField: (path: string, message: string) =>
    invalidArgument("invalid_request", `${path} ${message}.`, [{ path, message }]),
  unknownSecretKey: (id: string) => notFound("unknown_secret_key", `No secret key with id "${id}".`),
  connectionExists: (key: string, id: string) =>
    alreadyExists("connection_already_exists", `Connection "${id}" already exists for integration "${key}".`),
  unknownConnectSession: () =>
    unauthenticated(
      "unknown_connect_session_token",
      "Unknown connect session token. Ask your app for a new one (POST /connect/sessions).",
    ),
  connectSessionExpired: () =>
    unauthenticated(
      "connect_session_expired",
      "The connect session has expired. Ask your app for a new one (POST /connect/sessions).",
    ),
  integrationNotAllowed: (key: string, allowed: string[]) =>
    new JunctionError(
      "integration_not_allowed",
      `This connect session does not allow integration "${key}"; it allows ${allowed.map((a) => `"${a}"`).join(", ")}.`,
      Code.PermissionDenied,
    ),
  integrationMissingCredentials: (key: string) =>
    failedPrecondition(
      "integration_missing_credentials",
      `Integration "${key}" has no OAuth client id and secret: set them (PATCH /integrations/${key}) or switch it to test credentials (PUT /integrations/${key}/test-mode).`,
    ),
  authSocketInUse: () =>
    alreadyExists(
      "ws_client_id_in_use",
      "This ws_client_id already waits for another connect session's authorization. Nothing was started; open a new WebSocket for a new id.",
    ),
  notAnAuthorizationFlow: (key: string, provider: string, mode: string) =>
    failedPrecondition(
      "not_an_authorization_flow",
      `Integration "${key}" (provider "${provider}") authenticates with ${mode}, not an OAuth authorization: create its connections with POST /connections (credentials of type ${mode}) or the connect page's form.`,
    ),
  clientCredentialsRefused: (provider: string, why: string) =>
    failedPrecondition(
      "client_credentials_refused",
      `Provider "${provider}": ${why}. Nothing was saved. Check the integration's client id and secret, then submit the form again.`,
    ),
  testCredentialsUnavailable: (key: string, provider: string) =>
    failedPrecondition(
      "test_credentials_unavailable",
      `Integration "${key}" uses test credentials, but the operator configured none for provider "${provider}" (JUNCTION_TEST_CREDENTIALS_* or JUNCTION_SANDBOX_UPSTREAM, see docs/test-mode.md).`,
    ),
  connectionRefreshFailed: (message: string) =>
    new JunctionError("connection_refresh_failed", message, Code.FailedPrecondition),
  refreshBusy: (key: string, id: string) =>
    new JunctionError(
      "connection_refresh_busy",
      `Another process has been refreshing the token of connection "${id}" (integration "${key}") for too long; try again.`,
      Code.Unavailable,
    ),
  credentialReadsDisabled: () =>
    new JunctionError(
      "credential_reads_disabled",
      "The operator of this Junction switched credential reads off (JUNCTION_CREDENTIAL_READS=false): tokens are not returned by the API. Call the upstream through the proxy (/proxy) instead; connection metadata is in GET /connections?connectionId=.",
      Code.PermissionDenied,
    ),
};
