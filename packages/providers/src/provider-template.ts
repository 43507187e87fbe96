/** How the upstream classifies a scope (spec: Authentication 6–7). */
export type ScopeSensitivity = "basic" | "sensitive" | "restricted";

export interface ScopeTemplate {
  name: string;
  description: string;
  sensitivity: ScopeSensitivity;
}

/** Roles of the notification headers an upstream sends; values are lower-case header names. */
export interface WebhookHeaderNames {
  channelId: string;
  resourceId: string;
  resourceUri: string;
  resourceState: string;
  messageNumber: string;
  channelToken: string;
  channelExpiration: string;
}

/** A provider's OAuth template and proxy facts, as the connection service lists them (see ProviderAdapter). */
export interface ProviderTemplate {
  name: string;
  displayName: string;
  baseUrl: string;
  authorizationUrl: string;
  tokenUrl: string;
  authorizationParams: Record<string, string>;
  scopes: ScopeTemplate[];
  defaultScopes: string[];
  webhookHeaders: WebhookHeaderNames | null;
  /** Hosts a caller's Base-Url-Override may point at (never loopback or private ranges). */
  allowedOverrideHosts: string[];
  /** Connections read the account's email at authorization and store connection_config.emailAddressHash. */
  storesEmailHash: boolean;
}
