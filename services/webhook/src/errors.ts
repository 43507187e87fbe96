import { Code } from "@connectrpc/connect";
import { type FieldError, invalidArgument, JunctionError, notFound } from "@junction/platform";

/** One refused endpoint URL: where it was in the request, what it was and why. */
export interface RefusedUrl {
  index: number;
  url: string;
  reason: string;
}

const SHOWN_IN_MESSAGE = 5;

/** Long URLs are cut in messages; the full list of problems is in `errors`. */
const quote = (url: string) => `"${url.length > 120 ? `${url.slice(0, 120)}…` : url}"`;

/** The webhook service's domain errors; the error boundary maps them to Connect codes. */
/** The Connect code of an adapter's refusal, by the HTTP status it asked for. */
const REFUSAL_CODES: Readonly<Record<number, Code>> = {
  401: Code.Unauthenticated,
  403: Code.PermissionDenied,
  503: Code.Unavailable,
};

export const errors = {
  invalidEndpointUrls: (refused: RefusedUrl[]) => {
    const fieldErrors: FieldError[] = refused.map((r) => ({
      path: `endpoint_urls[${r.index}]`,
      message: `${quote(r.url)} ${r.reason}`,
    }));
    const shown = refused.slice(0, SHOWN_IN_MESSAGE).map((r) => `${quote(r.url)} ${r.reason}`);
    const more = refused.length > SHOWN_IN_MESSAGE ? ` (and ${refused.length - SHOWN_IN_MESSAGE} more)` : "";
    const message =
      refused.length === 1 ? `Endpoint URL ${shown[0]}.` : `Invalid endpoint URLs: ${shown.join("; ")}${more}.`;
    return invalidArgument("invalid_endpoint_url", message, fieldErrors);
  },
  /**
   * A webhook URL given elsewhere than the settings (a connection's override), refused by the same
   * rules. The URL is not repeated: it may hold a password.
   */
  invalidWebhookUrl: (path: string, reason: string) =>
    invalidArgument("invalid_webhook_url", `${path} ${reason}.`, [{ path, message: reason }]),
  tooManyEndpoints: (count: number, max: number) =>
    invalidArgument("too_many_endpoints", `At most ${max} webhook endpoints are allowed; ${count} were given.`, [
      { path: "endpoint_urls", message: `must hold at most ${max} distinct URLs` },
    ]),
  invalidGracePeriod: (ms: bigint, maxMs: number) =>
    invalidArgument(
      "invalid_grace_period",
      `grace_ms must be between 0 (default: 24 hours) and ${maxMs} (${maxMs / 86_400_000} days); got ${ms}.`,
      [{ path: "grace_ms", message: `must be between 0 and ${maxMs}` }],
    ),
  /** The webhook URL names no integration of this deployment (unknown id, or another environment). */
  unknownWebhookUrl: () =>
    notFound("unknown_webhook_url", "No integration receives notifications at this webhook URL."),
  invalidNotification: (problem: string) =>
    invalidArgument("invalid_notification", `The notification ${problem}.`, [{ path: "headers", message: problem }]),
  /** What a notification's body holds is refused (a batch over the provider's limit, a handshake too large). */
  invalidNotificationBody: (problem: string) =>
    invalidArgument("invalid_notification", `The notification ${problem}.`, [{ path: "body", message: problem }]),
  /** A body above the provider's limit (the gateway answers 413). */
  notificationTooLarge: (limit: number) =>
    new JunctionError(
      "request_too_large",
      `A notification's body may hold at most ${limit} bytes for this integration's provider; it was not recorded.`,
      Code.ResourceExhausted,
    ),
  /**
   * A notification its provider's adapter refused: 401 and 403 keep their meaning, 503 (a check the
   * reader could not make now, e.g. a push token's keys unreachable) is retried by the upstream, any other status is a 400.
   */
  notificationRefused: (status: number, code: string, message: string) =>
    new JunctionError(code, message, REFUSAL_CODES[status] ?? Code.InvalidArgument),
  unknownMessage: (id: string) => notFound("unknown_message", `No webhook message with id "${id}".`),
  unknownEndpoint: (id: string) => notFound("unknown_endpoint", `No webhook endpoint with id "${id}".`),
  invalidField: (path: string, message: string) =>
    invalidArgument("invalid_request", `${path} ${message}.`, [{ path, message }]),
  /** Other writers kept changing the settings while this request retried; the caller may retry. */
  settingsContention: () =>
    new JunctionError("settings_conflict", "The webhook settings were changed concurrently; retry.", Code.Aborted),
};
