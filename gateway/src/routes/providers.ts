import { z } from "zod";
import { json } from "../http/json.ts";
import { dataOf } from "../openapi/route-doc.ts";
import type { Route } from "../router.ts";

const scopeAnswer = z.object({ name: z.string(), description: z.string(), sensitivity: z.string() });
const providerAnswer = z
  .object({
    name: z.string(),
    display_name: z.string(),
    auth_mode: z.literal("OAUTH2"),
    proxy: z.object({ base_url: z.string() }),
    authorization_url: z.string(),
    token_url: z.string(),
    authorization_params: z.record(z.string(), z.string()),
    default_scopes: z.array(z.string()),
    scopes: z.array(scopeAnswer),
    webhooks: z.object({ headers: z.record(z.string(), z.string()) }).nullable(),
  })
  .meta({ id: "Provider" });

/** GET /providers: the templates integrations are created from, with their scope catalogues. */
export function providerRoutes(): Route[] {
  return [
    {
      method: "GET",
      pattern: "/providers",
      handler: async ({ clients }) => {
        const { providers } = await clients.connection.listProviders({});
        return json({
          data: providers.map((p) => ({
            name: p.name,
            display_name: p.displayName,
            auth_mode: "OAUTH2",
            proxy: { base_url: p.baseUrl },
            authorization_url: p.authorizationUrl,
            token_url: p.tokenUrl,
            authorization_params: p.authorizationParams,
            default_scopes: p.defaultScopes,
            scopes: p.scopes.map((s) => ({ name: s.name, description: s.description, sensitivity: s.sensitivity })),
            webhooks:
              p.webhookHeaders && Object.keys(p.webhookHeaders).length > 0 ? { headers: p.webhookHeaders } : null,
          })),
        });
      },
      doc: {
        summary: "List provider templates",
        description:
          "The templates integrations are created from, with their scope catalogue and each scope's sensitivity.",
        tags: ["Providers"],
        responses: { 200: dataOf(z.array(providerAnswer)) },
        errors: [],
      },
    },
  ];
}
