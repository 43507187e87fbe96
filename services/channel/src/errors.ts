import { Code } from "@connectrpc/connect";
import { failedPrecondition, invalidArgument, JunctionError, notFound } from "@junction/platform";

/** The channel service's domain errors; the error boundary maps them to Connect codes. */
export const errors = {
  unknownChannel: (id: string) => notFound("unknown_channel", `No notification channel with id "${id}".`),
  invalidField: (path: string, message: string) =>
    invalidArgument("invalid_request", `${path} ${message}.`, [{ path, message }]),
  integrationHasNoChannels: (key: string) =>
    failedPrecondition(
      "integration_has_no_channels",
      `Integration "${key}" is of a provider without notification channels.`,
    ),
  stopsUnavailable: () =>
    new JunctionError("channel_stops_unavailable", "This channel service cannot call the upstream.", Code.Unavailable),
};
