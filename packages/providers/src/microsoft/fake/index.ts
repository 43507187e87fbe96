import type { FakeHost, FakeInstance, ProviderFake, SandboxCredentialUrls } from "../../fake-kit/provider-fake.ts";
import { type MountedRoute, mountRoutes, route } from "../../fake-kit/router.ts";
import { approveRoute, authorizeRoute } from "./authorize-routes.ts";
import {
  IdentityStore,
  type SavedIdentityStore,
  type MicrosoftClient,
  type MicrosoftToken,
  type MicrosoftUser,
} from "./identity-store.ts";
import type { MicrosoftFakeOptions, MicrosoftFakeState } from "./state.ts";
import { tokenRoute } from "./token-route.ts";

export type { MicrosoftClient, MicrosoftFakeOptions, MicrosoftFakeState, MicrosoftToken, MicrosoftUser };
export { graphError } from "./errors.ts";

export interface MicrosoftFakeControls {
  /** Plays the browser at the identity platform: GETs an authorization URL, returns the redirect (callback URL). */
  microsoftAuthorize(authorizationUrl: string): Promise<URL>;
  /** Expires every live Microsoft access token without moving the clock. */
  expireMicrosoftAccessTokens(): number;
}

export interface MicrosoftFakeStateView {
  readonly microsoftUsers: ReadonlyMap<string, MicrosoftUser>;
  readonly microsoftAccessTokens: ReadonlyMap<string, MicrosoftToken>;
  readonly microsoftRefreshTokens: ReadonlyMap<string, MicrosoftToken>;
  readonly microsoftTokenRequests: MicrosoftFakeState["tokenRequests"];
}

export interface MicrosoftFakeInstance extends FakeInstance {
  routes: MountedRoute[];
  controls: MicrosoftFakeControls;
  state: MicrosoftFakeStateView;
  /** With `{tenant}` left in, as Junction's template has it: the integration's tenant setting fills it. */
  endpoints: { microsoftAuthorizationUrl: string; microsoftTokenUrl: string };
  /** What the Graph fakes build on (`host.use(fake)`). */
  microsoft: MicrosoftFakeState;
  /** A sandbox credential of a Microsoft API at `baseUrl`, signing in here. */
  sandboxCredential(baseUrl: string): SandboxCredentialUrls;
}

/** login.microsoftonline.com */
const ROUTES = [
  route("GET", /^\/([^/]+)\/oauth2\/v2\.0\/authorize$/, authorizeRoute),
  route("POST", /^\/([^/]+)\/oauth2\/v2\.0\/authorize\/approve$/, approveRoute),
  route("POST", /^\/([^/]+)\/oauth2\/v2\.0\/token$/, tokenRoute),
];

/** The Microsoft identity platform v2 (authorization code with PKCE, refresh), tenant in the path. */
export const fake: ProviderFake<MicrosoftFakeOptions, MicrosoftFakeInstance> = {
  name: "microsoft",
  start(host: FakeHost, options: MicrosoftFakeOptions): MicrosoftFakeInstance {
    const identity = new IdentityStore(host.now);
    for (const client of options.clients ?? []) identity.clients.set(client.clientId, client);
    const microsoft: MicrosoftFakeState = {
      now: host.now,
      changes: host.changes,
      identity,
      interactive: options.interactive ?? false,
      defaultUser: options.microsoftDefaultUser ?? "adele@contoso.example",
      accessTokenTtlSeconds: options.microsoftAccessTokenTtlSeconds ?? 3599,
      tokenRequests: [],
    };
    const authorizationUrl = `${host.url}/{tenant}/oauth2/v2.0/authorize`;
    const tokenUrl = `${host.url}/{tenant}/oauth2/v2.0/token`;
    return {
      microsoft,
      sandboxCredential: (baseUrl) => ({ authorizationUrl, tokenUrl, baseUrl }),
      routes: mountRoutes(microsoft, ROUTES),
      endpoints: { microsoftAuthorizationUrl: authorizationUrl, microsoftTokenUrl: tokenUrl },
      state: {
        microsoftUsers: identity.users,
        microsoftAccessTokens: identity.accessTokens,
        microsoftRefreshTokens: identity.refreshTokens,
        microsoftTokenRequests: microsoft.tokenRequests,
      },
      controls: {
        async microsoftAuthorize(url) {
          const response = await fetch(url, { redirect: "manual" });
          const location = response.headers.get("location");
          if (response.status !== 302 || !location) {
            throw new Error(`fake-upstream: sign-in did not redirect (${response.status}): ${await response.text()}`);
          }
          return new URL(location);
        },
        expireMicrosoftAccessTokens() {
          let n = 0;
          for (const token of identity.accessTokens.values()) {
            if ((token.expiresAt ?? 0) > host.now()) {
              token.expiresAt = host.now();
              n += 1;
            }
          }
          host.changes.changed();
          return n;
        },
      },
      persistence: {
        save: () => identity.save(),
        restore: (saved) => identity.restore(saved as SavedIdentityStore),
      },
    };
  },
};
