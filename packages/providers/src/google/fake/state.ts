import type { StateChanges } from "../../fake-kit/state-changes.ts";
import type { AuthorizationOverride } from "./authorize-routes.ts";
import type { IdTokenSigner } from "./id-token-signer.ts";
import type { GoogleFakeResolvedOptions } from "./options.ts";
import type { OAuthStore } from "./oauth-store.ts";
import type { TokenEndpointControl } from "./token-endpoint-control.ts";

/** Google's accounts (OAuth, identity) as the fake keeps them, shared by the calendar and mail fakes. */
export interface GoogleFakeState {
  options: GoogleFakeResolvedOptions;
  now: () => number;
  changes: StateChanges;
  oauth: OAuthStore;
  idTokens: IdTokenSigner;
  tokenEndpoint: TokenEndpointControl;
  /** One-shot override for the next consent decision. */
  nextAuthorization: AuthorizationOverride | undefined;
  /** Failures served so far per /flaky key. */
  flakyAttempts: Map<string, number>;
}
