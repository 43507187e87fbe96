import { invalidArgument, notFound } from "@junction/platform";

/** The channel service's domain errors; the error boundary maps them to Connect codes. */
export const errors = {
  unknownChannel: (id: string) => notFound("unknown_channel", `No notification channel with id "${id}".`),
  invalidField: (path: string, message: string) =>
    invalidArgument("invalid_request", `${path} ${message}.`, [{ path, message }]),
};
