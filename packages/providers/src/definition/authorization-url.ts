import type { ProviderDefinition } from "./provider-definition.ts";

/** How a definition's scope separator is written between scopes (before URL encoding). */
export const SCOPE_SEPARATORS = { space: " ", comma: ",", plus: "+" } as const;

/** What one authorization request carries besides the definition's own parameters. */
export interface AuthorizationRequest {
  /** The authorization endpoint in force (the definition's or an override), its placeholders filled. */
  authorizationUrl: string;
  clientId: string;
  redirectUri: string;
  scopes: readonly string[];
  state: string;
  /** The RFC 7636 S256 challenge; sent unless the definition refuses PKCE. */
  codeChallenge: string;
  /** Parameters the connect session passes, set after the definition's and before the protocol's. */
  passedParams?: Iterable<[string, string]>;
}

/**
 * The upstream authorization URL (RFC 6749 4.1.1) for a definition: its extra parameters, then the
 * session's, then response_type, client_id, redirect_uri, the scopes (if any) joined with the
 * definition's separator in its scope parameter, state and, unless PKCE is refused, the S256 challenge.
 */
export function buildAuthorizationUrl(
  definition: Pick<ProviderDefinition, "authorizationParams" | "scopeSeparator" | "scopeParameter" | "pkce">,
  req: AuthorizationRequest,
): URL {
  const url = new URL(req.authorizationUrl);
  for (const [name, value] of Object.entries(definition.authorizationParams)) url.searchParams.set(name, value);
  for (const [name, value] of req.passedParams ?? []) url.searchParams.set(name, value);
  url.searchParams.set("response_type", "code");
  url.searchParams.set("client_id", req.clientId);
  url.searchParams.set("redirect_uri", req.redirectUri);
  // A provider whose scopes are set on the app (Notion, Pipedrive) is sent none.
  if (req.scopes.length > 0) {
    url.searchParams.set(definition.scopeParameter, req.scopes.join(SCOPE_SEPARATORS[definition.scopeSeparator]));
  }
  url.searchParams.set("state", req.state);
  // An unknown parameter is an error at a provider that refuses PKCE.
  if (definition.pkce !== "refused") {
    url.searchParams.set("code_challenge", req.codeChallenge);
    url.searchParams.set("code_challenge_method", "S256");
  }
  return url;
}
