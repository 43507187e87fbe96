import { AuthorizationOutcome } from "@junction/contracts/connection/v1/connection_service_pb";
import type { CallbackAnswer } from "./authorization-callback.ts";
import type { OAuthSettings } from "./oauth-settings.ts";
import type { TokenFailure } from "./token-client.ts";

/** A failed callback: the answer for the page, and the error for the auth webhook. */
export interface CallbackFailure {
  errorType: string;
  message: string;
  answer: CallbackAnswer;
}

type StateOutcome =
  | AuthorizationOutcome.MISSING_STATE
  | AuthorizationOutcome.UNKNOWN_STATE
  | AuthorizationOutcome.STATE_ALREADY_USED
  | AuthorizationOutcome.AUTHORIZATION_EXPIRED
  | AuthorizationOutcome.CONNECT_SESSION_EXPIRED;

/** The answer for a state that cannot be used. Nothing is known of the attempt, so nothing else is said. */
export function stateProblem(outcome: StateOutcome, settings: OAuthSettings): CallbackAnswer {
  const minutes = Math.round(settings.authorizationStateTtlMs / 60_000);
  const messages: Record<StateOutcome, string> = {
    [AuthorizationOutcome.MISSING_STATE]:
      "The authorization response has no state parameter, so it cannot be tied to an authorization started here. Nothing was saved. Start again from the app.",
    [AuthorizationOutcome.UNKNOWN_STATE]:
      "The authorization response does not belong to any authorization started here (unknown state). Nothing was saved. Start again from the app.",
    [AuthorizationOutcome.STATE_ALREADY_USED]:
      "This authorization response was already used (replayed state); it can be used once only. Nothing more was saved. If you did not just connect, start again from the app.",
    [AuthorizationOutcome.AUTHORIZATION_EXPIRED]: `The authorization took too long: it must finish within ${minutes} minutes of starting. Nothing was saved. Start again from the app.`,
    [AuthorizationOutcome.CONNECT_SESSION_EXPIRED]:
      "The connect session expired before the authorization finished. Nothing was saved. Ask the app for a new session and start again.",
  };
  return { outcome, message: messages[outcome] };
}

/** The answer for a token exchange that did not give tokens. */
export function describeExchangeFailure(failure: TokenFailure, provider: string): CallbackFailure {
  switch (failure.kind) {
    case "refused": {
      const what = `${failure.error}${failure.description ? ` (${failure.description})` : ""}`;
      return {
        errorType: failure.error,
        message: `Provider "${provider}" refused to exchange the authorization code for tokens: ${what}. ${refusalHint(failure.error)} Nothing was saved.`,
        answer: {
          outcome: AuthorizationOutcome.TOKEN_EXCHANGE_REFUSED,
          upstreamError: failure.error,
          upstreamErrorDescription: failure.description,
        },
      };
    }
    case "timeout":
      return {
        errorType: "token_endpoint_timeout",
        message: `The token endpoint of provider "${provider}" did not answer within ${Math.round(failure.timeoutMs / 100) / 10} s. Nothing was saved. Try again in a moment.`,
        answer: { outcome: AuthorizationOutcome.TOKEN_ENDPOINT_TIMEOUT },
      };
    case "unreachable":
      return {
        errorType: "token_endpoint_unreachable",
        message: `The token endpoint of provider "${provider}" could not be reached (${failure.detail}). Nothing was saved. Try again later; if it persists, check the integration's token URL.`,
        answer: { outcome: AuthorizationOutcome.TOKEN_ENDPOINT_UNREACHABLE },
      };
    case "invalid_response":
      return {
        errorType: "token_endpoint_invalid_response",
        message: `The token endpoint of provider "${provider}" answered HTTP ${failure.status} with something that is not a token response: ${failure.detail}. Nothing was saved. Try again later; if it persists, check the integration's token URL and the provider's definition (tokenResponse).`,
        answer: { outcome: AuthorizationOutcome.TOKEN_ENDPOINT_INVALID_RESPONSE },
      };
  }
}

function refusalHint(error: string): string {
  switch (error) {
    case "invalid_grant":
      return "The code was already used, has expired, or does not belong to this authorization. Start again from the app.";
    case "invalid_client":
    case "unauthorized_client":
      return "The integration's OAuth client id or secret is not accepted by the provider; check them.";
    case "redirect_uri_mismatch":
      return "Register {base_url}/oauth/callback as an authorized redirect URI with the provider.";
    default:
      return "Start again from the app; if it persists, check the integration's configuration.";
  }
}
