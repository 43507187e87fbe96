import { INTEGRATION_KEY_PATTERN, INTEGRATION_KEY_RULE } from "@junction/public-api/limits";
import { z } from "zod";
import { managedChannelsSchema, providerSettingsSchema, strictChannelsSchema } from "./integration-settings-input.ts";

const scopesSchema = z
  .union([z.string(), z.array(z.string().min(1))])
  .transform((v) => (Array.isArray(v) ? v : v.split(/[,\s]+/).filter(Boolean)));

const credentialsSchema = z
  .object({
    type: z.literal("OAUTH2"),
    client_id: z.string().min(1),
    client_secret: z.string().min(1),
    scopes: scopesSchema.optional(),
    // Nango's secret for verifying a provider's signed webhooks; Junction's providers sign none: ignored.
    webhook_secret: z.string().max(255).optional(),
  })
  .strict();

/**
 * Nango's own provider-specific settings: accepted (as Nango's shape: string values) and ignored.
 * Junction's are `provider_settings`, checked against the provider's adapter.
 */
const ignoredNangoSettings = {
  integration_config: z.record(z.string(), z.string().max(8192)).optional(),
  custom: z.record(z.string(), z.string()).optional(),
};

const url = z.string().url().max(2048);
const integrationKey = z.string().regex(INTEGRATION_KEY_PATTERN, INTEGRATION_KEY_RULE);
const overridesSchema = z
  .object({ base_url: url.optional(), authorization_url: url.optional(), token_url: url.optional() })
  .strict();

/** The settings both bodies take, after the credentials. */
const settingsFields = {
  forward_webhooks: z.boolean().optional(),
  upstream_overrides: overridesSchema.optional(),
  provider_settings: providerSettingsSchema.optional(),
  managed_channels: managedChannelsSchema.optional(),
  strict_channels: strictChannelsSchema.optional(),
  ...ignoredNangoSettings,
};

/** The body of POST /integrations (Nango's shape, with Junction's settings). */
export const createSchema = z
  .object({
    unique_key: integrationKey,
    provider: z.string().min(1).max(255),
    display_name: z.string().min(1).max(255).optional(),
    credentials: credentialsSchema.optional(),
    ...settingsFields,
  })
  .strict();

/** The body of PATCH /integrations/{key}: every field optional, the secret kept when left out. */
export const updateSchema = z
  .object({
    unique_key: integrationKey.optional(),
    display_name: z.string().min(1).max(255).optional(),
    credentials: credentialsSchema.partial({ client_secret: true }).optional(),
    ...settingsFields,
  })
  .strict();

/** The upstream overrides as the connection service takes them. */
export function toOverrides(o: z.infer<typeof overridesSchema> | undefined) {
  return o
    ? { baseUrl: o.base_url ?? "", authorizationUrl: o.authorization_url ?? "", tokenUrl: o.token_url ?? "" }
    : undefined;
}
