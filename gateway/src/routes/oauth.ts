import type { Route } from "../router.ts";

/** the OAuth flow: /connect/sessions, /oauth/connect/{integration}, /oauth/callback (OAuth issue). */
export function oauthRoutes(): Route[] {
  return [];
}
