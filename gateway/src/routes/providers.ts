import { json } from "../http/json.ts";
import type { Route } from "../router.ts";

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
    },
  ];
}
