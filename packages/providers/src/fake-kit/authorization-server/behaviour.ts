/**
 * What a test sets on the fake authorization server: one value per OAuth 2.0 variation a provider
 * definition can describe, and the failures Junction must survive. Every field can be
 * changed between requests (`server.behave({...})`).
 */
export interface AuthorizationServerBehaviour {
  clientId: string;
  clientSecret: string;
  /** How the client must authenticate at the token endpoint; the other way is refused (invalid_client). */
  clientAuthentication: "client_secret_post" | "client_secret_basic";
  /** required: an authorization without S256 is refused; refused: one with a challenge is; optional: both pass. */
  pkce: "required" | "optional" | "refused";
  /** The separator the `scope` parameter must use (after URL decoding); another is refused (invalid_scope). */
  scopeSeparator: " " | "," | "+";
  /** Authorization parameters that must be present with these values (invalid_request otherwise). */
  requiredAuthorizationParams: Record<string, string>;
  /** Token-request parameters that must be present with these values, on every grant. */
  requiredTokenParams: Record<string, string>;
  /**
   * Where refresh tokens are spent, a path suffix ("/oauth/refresh", Figma's): refresh grants are then
   * refused at `…/token` and every other grant at this path (unsupported_grant_type). null: at `…/token`.
   */
  refreshPath: string | null;
  /** A refresh without `scope` is refused (invalid_scope). */
  refreshNeedsScope: boolean;
  /** How token answers are encoded. */
  answerFormat: "json" | "form";
  /** Tokens placed under this key of the answer (a user token under `authed_user`); the top level then holds a bot token. */
  nestUnder: string;
  /** `token_type` of the issued tokens; null leaves it out. */
  tokenType: string | null;
  /** Seconds; null: the tokens never expire (no expires_in). */
  expiresIn: number | null;
  /** Every refresh issues a new refresh token and retires the one used. */
  rotateRefreshTokens: boolean;
  /** After a rotation, the retired refresh token still works until the new one is first used. */
  retiredRefreshTokenGrace: boolean;
  /**
   * The next refresh rotates (the refresh token used is retired, a new one made) and then answers this
   * instead of the tokens: the answer is lost. Reset to null once used.
   */
  loseNextRefreshAnswer: "html_502" | "json_500" | null;
  /** Extra query parameters of the redirect back after consent (QuickBooks' realmId). */
  callbackParams: Record<string, string>;
  /** Extra top-level fields of every token answer (an `instance_url`, a team id). */
  extraAnswerFields: Record<string, unknown>;
  /** Error answers as HTML pages (a provider's error page) instead of OAuth JSON. */
  htmlErrors: boolean;
  /**
   * The next successful token answer is replaced: without access_token, with another token type, or an
   * HTML page with status 200. Reset to null once used.
   */
  breakNextAnswer: "no_access_token" | "wrong_token_type" | "html_200" | null;
}

export const DEFAULT_BEHAVIOUR: AuthorizationServerBehaviour = {
  clientId: "fake-client-id",
  clientSecret: "fake-client-secret-never-logged",
  clientAuthentication: "client_secret_post",
  pkce: "optional",
  scopeSeparator: " ",
  requiredAuthorizationParams: {},
  requiredTokenParams: {},
  refreshPath: null,
  refreshNeedsScope: false,
  answerFormat: "json",
  nestUnder: "",
  tokenType: "Bearer",
  expiresIn: 3600,
  rotateRefreshTokens: false,
  retiredRefreshTokenGrace: false,
  loseNextRefreshAnswer: null,
  callbackParams: {},
  extraAnswerFields: {},
  htmlErrors: false,
  breakNextAnswer: null,
};
