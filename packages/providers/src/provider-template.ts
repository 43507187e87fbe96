import type { ProviderDefinition } from "./definition/provider-definition.ts";

export type {
  ScopeSensitivity,
  ScopeTemplate,
  WebhookHeaderNames,
} from "./definition/provider-definition.ts";

/**
 * A provider's OAuth template and proxy facts, as the connection service lists them (see ProviderAdapter):
 * its data-only definition (definition/provider-definition.ts), every default applied.
 */
export type ProviderTemplate = ProviderDefinition;
