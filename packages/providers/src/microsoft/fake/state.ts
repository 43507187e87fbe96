import type { StateChanges } from "../../fake-kit/state-changes.ts";
import type { IdentityStore, MicrosoftClient } from "./identity-store.ts";

/** Options of the identity platform fake; `clients` and `interactive` are the sandbox's, shared with Google's fake. */
export interface MicrosoftFakeOptions {
  /** OAuth clients registered at start. */
  clients?: MicrosoftClient[];
  /** Render a sign-in and consent page instead of approving at once. Default false. */
  interactive?: boolean;
  /** Who signs in when the request has no `login_hint`. Default `adele@contoso.example`. */
  microsoftDefaultUser?: string;
  /** Access token lifetime, as `expires_in`. Default 3599. */
  microsoftAccessTokenTtlSeconds?: number;
}

/** The identity platform as the fake keeps it, shared with the Graph fakes. */
export interface MicrosoftFakeState {
  now: () => number;
  changes: StateChanges;
  identity: IdentityStore;
  interactive: boolean;
  defaultUser: string;
  accessTokenTtlSeconds: number;
  /** Token requests by grant type, with the tenant they came through. */
  tokenRequests: { grantType: string; tenant: string; clientId: string; ok: boolean }[];
}
