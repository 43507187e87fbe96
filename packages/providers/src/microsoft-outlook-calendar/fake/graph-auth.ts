import { graphError, type MicrosoftToken } from "../../microsoft/fake/index.ts";
import type { GraphFakeState } from "./state.ts";

/** The access token behind `Authorization: Bearer`, or Graph's 401 InvalidAuthenticationToken. */
export function graphAuthenticate(request: Request, up: GraphFakeState): MicrosoftToken | Response {
  const value = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.get("authorization") ?? "")?.[1];
  if (!value) return graphError(401, "InvalidAuthenticationToken", "Access token is empty.");
  const token = up.microsoft.identity.validAccessToken(value);
  if (!token) {
    return graphError(401, "InvalidAuthenticationToken", "Lifetime validation failed, the token is expired.");
  }
  return token;
}
