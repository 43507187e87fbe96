import type { IntegrationSetting } from "../adapter.ts";

/** The keys of Gmail's integration settings (`provider_settings`). */
export const SETTING = {
  audience: "pubsub_audience",
  serviceAccountEmail: "pubsub_service_account_email",
  jwksUrl: "pubsub_jwks_url",
  topic: "pubsub_topic",
} as const;

/** Google's keys for the tokens of authenticated push subscriptions. */
export const DEFAULT_JWKS_URL = "https://www.googleapis.com/oauth2/v3/certs";

const PUSH_AUTH_DOCS = "https://cloud.google.com/pubsub/docs/authenticate-push-subscriptions";

/** What a Gmail integration may hold for push notifications through Pub/Sub. */
export const GMAIL_SETTINGS: readonly IntegrationSetting[] = [
  {
    key: SETTING.audience,
    label: "Pub/Sub push audience",
    description:
      "The audience of the push subscription's OIDC token (by default the push endpoint, i.e. this integration's webhook URL). When set, every push must carry a valid Google-signed bearer token for it.",
    defaultValue: "",
    docsUrl: PUSH_AUTH_DOCS,
  },
  {
    key: SETTING.serviceAccountEmail,
    label: "Pub/Sub push service account",
    description:
      "The service account the push subscription authenticates as. When set, the token's email must be this one, verified (and a token is required even without an audience).",
    defaultValue: "",
    docsUrl: PUSH_AUTH_DOCS,
  },
  {
    key: SETTING.jwksUrl,
    label: "Token signing keys (JWKS URL)",
    description: "Where the keys that sign push tokens are published. Google's, unless testing against a fake.",
    defaultValue: DEFAULT_JWKS_URL,
    docsUrl: PUSH_AUTH_DOCS,
    isUrl: true,
  },
  {
    key: SETTING.topic,
    label: "Pub/Sub topic",
    description:
      "The topic Gmail publishes mailbox changes to, projects/{project}/topics/{topic}, with gmail-api-push@system.gserviceaccount.com allowed to publish. Used when Junction creates the watch itself (managed channels).",
    defaultValue: "",
    docsUrl: "https://developers.google.com/workspace/gmail/api/guides/push",
  },
];
