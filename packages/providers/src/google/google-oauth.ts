import type { ScopeTemplate, WebhookHeaderNames } from "../provider-template.ts";

/** Shared by Google's templates: OAuth endpoints and parameters (Nango's `google` base entry). */
export const GOOGLE_OAUTH = {
  authorizationUrl: "https://accounts.google.com/o/oauth2/v2/auth",
  tokenUrl: "https://oauth2.googleapis.com/token",
  // offline + consent: the upstream returns a refresh token only when asked this way.
  authorizationParams: { access_type: "offline", prompt: "consent", response_type: "code" },
};

/** Basic scopes: allowed without verification, and exempt from Testing-mode 7-day refresh expiry. */
export const GOOGLE_BASIC_SCOPES: ScopeTemplate[] = [
  { name: "openid", description: "Associate you with your personal info.", sensitivity: "basic" },
  { name: "email", description: "The user's email address.", sensitivity: "basic" },
  { name: "profile", description: "Basic profile information.", sensitivity: "basic" },
];

/** The names the real upstream sends on calendar notifications (x-goog-*). */
export const GOOGLE_WEBHOOK_HEADERS: WebhookHeaderNames = {
  channelId: "x-goog-channel-id",
  resourceId: "x-goog-resource-id",
  resourceUri: "x-goog-resource-uri",
  resourceState: "x-goog-resource-state",
  messageNumber: "x-goog-message-number",
  channelToken: "x-goog-channel-token",
  channelExpiration: "x-goog-channel-expiration",
};
