import {
  AuthorizationOutcome,
  type CompleteAuthorizationResponse,
} from "@junction/contracts/connection/v1/connection_service_pb";
import { htmlPage } from "./html-page.ts";
import { openerMessage, originOf } from "./opener.ts";

/** HTTP status of the callback page per outcome: the page always says what happened. */
const STATUS: Record<AuthorizationOutcome, number> = {
  [AuthorizationOutcome.UNSPECIFIED]: 500,
  [AuthorizationOutcome.CONNECTED]: 200,
  [AuthorizationOutcome.MISSING_STATE]: 400,
  [AuthorizationOutcome.UNKNOWN_STATE]: 400,
  [AuthorizationOutcome.STATE_ALREADY_USED]: 400,
  [AuthorizationOutcome.AUTHORIZATION_EXPIRED]: 400,
  [AuthorizationOutcome.CONNECT_SESSION_EXPIRED]: 401,
  [AuthorizationOutcome.ACCESS_DENIED]: 403,
  [AuthorizationOutcome.UPSTREAM_ERROR]: 502,
  [AuthorizationOutcome.MISSING_CODE]: 400,
  [AuthorizationOutcome.TOKEN_EXCHANGE_REFUSED]: 400,
  [AuthorizationOutcome.TOKEN_ENDPOINT_TIMEOUT]: 504,
  [AuthorizationOutcome.TOKEN_ENDPOINT_INVALID_RESPONSE]: 502,
  [AuthorizationOutcome.TOKEN_ENDPOINT_UNREACHABLE]: 502,
  [AuthorizationOutcome.CONFIGURATION_ERROR]: 409,
};

/** The stable code of an outcome: its enum name in snake case ("token_exchange_refused"). */
export function outcomeCode(outcome: AuthorizationOutcome): string {
  return (AuthorizationOutcome[outcome] ?? "unspecified").toLowerCase();
}

/**
 * The page the browser gets at /oauth/callback. Its message goes to the origin that started the
 * authorization, else to `gatewayOrigin`; a failure names no connection, on the page or in the message.
 */
export function callbackPage(res: CompleteAuthorizationResponse, requestId: string, gatewayOrigin: string): Response {
  const ok = res.outcome === AuthorizationOutcome.CONNECTED;
  const code = outcomeCode(res.outcome);
  const name = res.integrationDisplayName || res.providerConfigKey;
  return htmlPage(
    STATUS[res.outcome] ?? 500,
    {
      title: ok ? "Connected" : "Authorization failed",
      code,
      heading: ok ? `Connected${name ? ` to ${name}` : ""}` : "Authorization failed",
      message: res.message,
      details: [
        ["Integration", res.providerConfigKey],
        ["Connection id", ok ? res.connectionId : ""],
        ["Provider error", res.upstreamError],
        ["Provider error description", res.upstreamErrorDescription],
      ],
      opener: {
        message: openerMessage({
          success: ok,
          code,
          message: res.message,
          providerConfigKey: res.providerConfigKey,
          connectionId: res.connectionId,
        }),
        origin: originOf(res.openerOrigin) || gatewayOrigin,
      },
    },
    requestId,
  );
}
