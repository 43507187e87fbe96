import { z } from "zod";
import { json } from "../http/json.ts";
import { parseWith, queryObject } from "../http/read-json.ts";
import type { Route } from "../router.ts";

/** Nango's `search`: part of a provider's name, any case (Nango reads it as a pattern; here it is literal). */
const listQuery = z.object({ search: z.string().min(1).max(255).optional() }).strict();

/** GET /providers: the templates integrations are created from, with their scope catalogues. */
export function providerRoutes(): Route[] {
  return [
    {
      method: "GET",
      pattern: "/providers",
      handler: async ({ clients, url }) => {
        const { search } = parseWith(listQuery, queryObject(url), "invalid_query_params", "query");
        const { providers } = await clients.connection.listProviders({});
        const wanted = search?.toLowerCase();
        return json({
          data: providers
            .filter((p) => wanted === undefined || p.name.toLowerCase().includes(wanted))
            .map((p) => ({
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
    },
  ];
}
