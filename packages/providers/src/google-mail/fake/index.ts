import type { FakeHost, FakeInstance, ProviderFake, SandboxCredentialUrls } from "../../fake-kit/provider-fake.ts";
import { type MountedRoute, mountRoutes, route } from "../../fake-kit/router.ts";
import { fake as googleFake } from "../../google/fake/index.ts";
import { profileRoute, sendMessageRoute } from "./gmail-routes.ts";
import type { MailFakeState, SentMessage } from "./state.ts";

export type { SentMessage };

export interface MailFakeStateView {
  readonly sentMessages: readonly SentMessage[];
}

export interface MailFakeInstance extends FakeInstance {
  routes: MountedRoute[];
  state: MailFakeStateView;
  /** `mailBaseUrl` replaces `https://gmail.googleapis.com`. */
  endpoints: { mailBaseUrl: string };
  sandboxCredentials: Record<string, SandboxCredentialUrls>;
}

/** gmail.googleapis.com/gmail/v1 */
const ROUTES = [
  route("GET", /^\/gmail\/v1\/users\/([^/]+)\/profile$/, profileRoute),
  route("POST", /^(?:\/upload)?\/gmail\/v1\/users\/([^/]+)\/messages\/send$/, sendMessageRoute),
];

/** Gmail v1: the mailbox profile and sending; the mailbox counters live on the shared Google user. */
export const fake: ProviderFake<object, MailFakeInstance> = {
  name: "google-mail",
  start(host: FakeHost): MailFakeInstance {
    const accounts = host.use(googleFake);
    const up: MailFakeState = { google: accounts.google, changes: host.changes, sentMessages: [] };
    return {
      routes: mountRoutes(up, ROUTES),
      endpoints: { mailBaseUrl: host.url },
      sandboxCredentials: { "google-mail": accounts.sandboxCredential(host.url) },
      state: { sentMessages: up.sentMessages },
    };
  },
};
