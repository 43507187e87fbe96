import { describeTokenFailure, isTransient, type TokenFailure } from "../oauth/token-client.ts";

/**
 * What an upstream invalid_grant on refresh can mean (spec: Authentication 8, Limits). The upstream
 * gives the same answer for all of them, so the message lists them instead of guessing.
 */
const INVALID_GRANT_CAUSES = [
  "the user revoked this app's access to their account",
  "the user changed their password and the token holds mail scopes",
  "the account reached the upstream's limit of 100 live refresh tokens for this OAuth client, which silently replaced the oldest",
  "the upstream app is in Testing mode with an External audience, where refresh tokens expire after 7 days unless only basic scopes (openid, email, profile) are requested",
  "a workspace admin restricted a requested service, or the admin-set session length was exceeded",
  "time-based access the user granted has expired",
  "the provider rotates refresh tokens and an answer carrying the new one was lost (a timeout or an error after it rotated), so the one held no longer works",
];

/** A person-readable explanation of a refresh failure, and what to do about it. */
export function explainRefreshFailure(failure: TokenFailure, cooldownMs: number): string {
  const what = `Token refresh failed: ${describeTokenFailure(failure)}.`;
  const retry = `Junction will not call the token endpoint again for this connection for ${Math.round(cooldownMs / 1000)} s.`;
  if (isTransient(failure)) {
    return `${what} This is usually temporary. ${retry} Nothing to do unless it persists; then check the integration's token URL.`;
  }
  if (failure.kind === "refused" && failure.error === "invalid_grant") {
    return [
      `${what} The upstream does not say why. It can mean that ${INVALID_GRANT_CAUSES.join("; or that ")}.`,
      "What to do: have the user authorize again (a reconnect session keeps the connection id). If it recurs for many users about 7 days after they connect, publish the upstream app to Production or request only basic scopes while testing.",
      retry,
    ].join(" ");
  }
  if (failure.kind === "refused" && (failure.error === "invalid_client" || failure.error === "unauthorized_client")) {
    return `${what} The OAuth client was refused: its id or secret changed or was deleted upstream, or the connection was authorized with other client credentials (test mode). What to do: check the integration's credentials, then have the user authorize again. ${retry}`;
  }
  return `${what} What to do: have the user authorize again; if it persists, check the integration's configuration upstream. ${retry}`;
}
