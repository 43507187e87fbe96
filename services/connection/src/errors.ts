import { alreadyExists, failedPrecondition, invalidArgument, notFound, type FieldError } from "@junction/platform";

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
  invalidField: (path: string, message: string) =>
    invalidArgument("invalid_request", `${path} ${message}.`, [{ path, message }]),
  unknownSecretKey: (id: string) => notFound("unknown_secret_key", `No secret key with id "${id}".`),
  connectionExists: (key: string, id: string) =>
    alreadyExists("connection_already_exists", `Connection "${id}" already exists for integration "${key}".`),
};
