import { randomId } from "../random-id.ts";
import { type AuthorizationState, oauthError } from "./authorization-state.ts";

/** `GET …/authorize`: consents at once and redirects back with a code, or with the error the behaviour calls for. */
export function answerAuthorize(state: AuthorizationState, url: URL): Response {
  const { behaviour } = state;
  const p = Object.fromEntries(url.searchParams);
  state.authorizations.push({ path: url.pathname, params: p });
  const redirect = p.redirect_uri;
  if (!redirect || p.client_id !== behaviour.clientId)
    return oauthError(behaviour, 400, "invalid_client", "unknown client_id");
  const back = (params: Record<string, string>) => {
    const to = new URL(redirect);
    for (const [k, v] of Object.entries({ ...params, ...(p.state ? { state: p.state } : {}) }))
      to.searchParams.set(k, v);
    return new Response(null, { status: 302, headers: { location: to.toString() } });
  };
  const refused = refusal(state, p);
  if (refused) return back({ error: refused[0], error_description: refused[1] });
  const scope = p.scope ?? "";
  const challenge = p.code_challenge ?? "";
  const code = `fake-code-${randomId()}`;
  state.codes.set(code, { scope, redirectUri: redirect, challenge, method: p.code_challenge_method ?? "plain" });
  return back({ ...behaviour.callbackParams, code });
}

/** Why the behaviour refuses these authorization parameters ([error, description]), or null. */
function refusal(state: AuthorizationState, p: Record<string, string>): [string, string] | null {
  const { behaviour } = state;
  if (p.response_type !== "code") return ["unsupported_response_type", "response_type must be code"];
  for (const [k, v] of Object.entries(behaviour.requiredAuthorizationParams)) {
    if (p[k] !== v) return ["invalid_request", `${k} must be ${v}`];
  }
  const scope = p.scope ?? "";
  const others = [" ", ",", "+"].filter((s) => s !== behaviour.scopeSeparator);
  if (others.some((s) => scope.includes(s)))
    return ["invalid_scope", `scopes must be separated by "${behaviour.scopeSeparator}"`];
  const challenge = p.code_challenge ?? "";
  if (behaviour.pkce === "required" && (challenge === "" || p.code_challenge_method !== "S256")) {
    return ["invalid_request", "code_challenge (S256) is required"];
  }
  if (behaviour.pkce === "refused" && challenge !== "") return ["invalid_request", "PKCE is not supported"];
  return null;
}
