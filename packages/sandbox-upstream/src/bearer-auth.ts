import { insufficientScopes, unauthenticated } from "./google-errors.ts";
import type { AccessTokenRecord } from "./oauth-store.ts";
import type { Upstream } from "./upstream.ts";

/** The access token record behind `Authorization: Bearer`, or Google's 401. */
export function authenticate(request: Request, up: Upstream): AccessTokenRecord | Response {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.get("authorization") ?? "");
  const record = match?.[1] ? up.oauth.validAccessToken(match[1]) : undefined;
  return record ?? unauthenticated();
}

/** Like `authenticate`, and with `enforceScopes` also demands a scope starting with one of `prefixes`. */
export function authorize(request: Request, up: Upstream, prefixes: string[]): AccessTokenRecord | Response {
  const record = authenticate(request, up);
  if (record instanceof Response || !up.options.enforceScopes) return record;
  const allowed = record.scopes.some((scope) => prefixes.some((prefix) => scope.startsWith(prefix)));
  return allowed ? record : insufficientScopes();
}

export const CALENDAR_SCOPES = ["https://www.googleapis.com/auth/calendar"];
export const GMAIL_READ_SCOPES = ["https://mail.google.com/", "https://www.googleapis.com/auth/gmail."];
export const GMAIL_SEND_SCOPES = [
  "https://mail.google.com/",
  "https://www.googleapis.com/auth/gmail.send",
  "https://www.googleapis.com/auth/gmail.compose",
  "https://www.googleapis.com/auth/gmail.modify",
];
