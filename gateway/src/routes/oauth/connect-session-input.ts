import type { JsonObject } from "@bufbuild/protobuf";
import { invalidArgument } from "@junction/platform";
import { z } from "zod";
import type { GatewayClients } from "../../clients.ts";
import { checkWebhookUrlOverride } from "../webhook-url-override.ts";

const key = z.string().min(1).max(255);

// Tag contents (strings, keys, how many) are checked by the connection service: 400 invalid_tags.
const tags = z.record(z.string(), z.unknown());
const endUser = z
  .object({
    id: key,
    email: z.string().email().min(5).optional(),
    display_name: z.string().max(255).optional(),
    tags: tags.optional(),
  })
  .strict();
const organization = z.object({ id: key, display_name: z.string().max(255).optional() }).strict();
const configDefaults = z.record(
  key,
  z
    .object({
      user_scopes: z.string().max(4096).optional(),
      authorization_params: z.record(z.string(), z.string()).optional(),
      connection_config: z.record(z.string(), z.unknown()).optional(),
    })
    .strict(),
);

/** Nango's overrides (docs_connect), plus the defaults' fields, which they replace or extend. */
const overrides = z.record(
  key,
  z
    .object({
      docs_connect: z.string().url().max(2048).optional(),
      user_scopes: z.string().max(4096).optional(),
      authorization_params: z.record(z.string(), z.string()).optional(),
      connection_config: z.record(z.string(), z.unknown()).optional(),
    })
    .strict(),
);

const sessionFields = {
  end_user: endUser.optional(),
  organization: organization.optional(),
  integrations_config_defaults: configDefaults.optional(),
  overrides: overrides.optional(),
  tags: tags.optional(),
  // Checked by the webhook service (checkWebhookUrlOverride); "" is none.
  webhook_url_override: z.string().max(2048).optional(),
};

/** Nango's POST /connect/sessions body: end_user is optional only when tags are given. */
export const createBody = z
  .object({ ...sessionFields, allowed_integrations: z.array(key).max(100).optional() })
  .strict()
  .refine((b) => b.end_user !== undefined || b.tags !== undefined, {
    path: ["end_user"],
    message: "is required unless tags are given",
  });

/** Nango's POST /connect/sessions/reconnect body: the connection to authorize again, by id and integration. */
export const reconnectBody = z.object({ ...sessionFields, connection_id: key, integration_id: key }).strict();

/** The fields both session bodies share, as CreateConnectSession takes them (the webhook URL checked). */
export async function sessionFieldsRequest(
  clients: GatewayClients,
  body: z.infer<typeof reconnectBody> | z.infer<typeof createBody>,
) {
  return {
    endUser: body.end_user as JsonObject | undefined,
    organization: body.organization as JsonObject | undefined,
    integrationsConfigDefaults: toDefaults(body.integrations_config_defaults),
    overrides: toOverrides(body.overrides),
    tags: stringTags(body.tags),
    webhookUrlOverride: await checkWebhookUrlOverride(clients, body.webhook_url_override),
  };
}

/** Top-level tags as the RPC carries them (strings); their keys and count are checked by the service. */
function stringTags(value: Record<string, unknown> | undefined): Record<string, string> {
  const wrong = Object.entries(value ?? {}).filter(([, v]) => typeof v !== "string");
  if (wrong.length > 0) {
    throw invalidArgument(
      "invalid_tags",
      `Invalid tags: ${wrong.map(([k]) => `tags.${k}`).join(", ")} must be strings.`,
      wrong.map(([k]) => ({ path: `tags.${k}`, message: "must be a string" })),
    );
  }
  return (value ?? {}) as Record<string, string>;
}

function toOverrides(o: z.infer<typeof overrides> | undefined) {
  return Object.fromEntries(
    Object.entries(o ?? {}).map(([k, v]) => [
      k,
      {
        docsConnect: v.docs_connect ?? "",
        userScopes: splitScopes(v.user_scopes),
        authorizationParams: v.authorization_params ?? {},
        connectionConfig: v.connection_config as JsonObject | undefined,
      },
    ]),
  );
}

function splitScopes(scopes: string | undefined): string[] {
  return (scopes ?? "").split(/[,\s]+/).filter(Boolean);
}

function toDefaults(d: z.infer<typeof configDefaults> | undefined) {
  return Object.fromEntries(
    Object.entries(d ?? {}).map(([k, v]) => [
      k,
      {
        userScopes: splitScopes(v.user_scopes),
        authorizationParams: v.authorization_params ?? {},
        connectionConfig: v.connection_config as JsonObject | undefined,
      },
    ]),
  );
}
