import { insufficientScopes, unauthenticated } from "./google-errors.ts";
import type { AccessTokenRecord } from "./oauth-store.ts";
import type { GoogleFakeState } from "./state.ts";

/** The access token record behind `Authorization: Bearer`, or Google's 401. */
export function authenticate(request: Request, up: GoogleFakeState): AccessTokenRecord | Response {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.get("authorization") ?? "");
  const record = match?.[1] ? up.oauth.validAccessToken(match[1]) : undefined;
  return record ?? unauthenticated();
}

/** Like `authenticate`, and with `enforceScopes` also demands one of `scopes`, exactly. */
export function authorizeScopes(
  request: Request,
  up: GoogleFakeState,
  scopes: readonly string[],
): AccessTokenRecord | Response {
  const record = authenticate(request, up);
  if (record instanceof Response || !up.options.enforceScopes) return record;
  return record.scopes.some((scope) => scopes.includes(scope)) ? record : insufficientScopes();
}

/** Like `authenticate`, and with `enforceScopes` also demands a scope starting with one of `prefixes`. */
export function authorize(request: Request, up: GoogleFakeState, prefixes: string[]): AccessTokenRecord | Response {
  const record = authenticate(request, up);
  if (record instanceof Response || !up.options.enforceScopes) return record;
  const allowed = record.scopes.some((scope) => prefixes.some((prefix) => scope.startsWith(prefix)));
  return allowed ? record : insufficientScopes();
}
