import type { Provider } from "@junction/contracts/connection/v1/connection_service_pb";
import { errorResponse } from "../http/error-response.ts";
import { json } from "../http/json.ts";
import type { Route } from "../router.ts";

/** A provider template in Nango's public shape, with its scope catalogue. */
function presentProvider(p: Provider) {
  return {
    name: p.name,
    display_name: p.displayName,
    auth_mode: "OAUTH2",
    proxy: { base_url: p.baseUrl },
    authorization_url: p.authorizationUrl,
    token_url: p.tokenUrl,
    authorization_params: p.authorizationParams,
    default_scopes: p.defaultScopes,
    scopes: p.scopes.map((s) => ({ name: s.name, description: s.description, sensitivity: s.sensitivity })),
    webhooks: p.webhookHeaders && Object.keys(p.webhookHeaders).length > 0 ? { headers: p.webhookHeaders } : null,
  };
}

/** GET /providers and /providers/{name}: the templates integrations are created from. */
export function providerRoutes(): Route[] {
  return [
    {
      method: "GET",
      pattern: "/providers",
      handler: async ({ clients }) => {
        const { providers } = await clients.connection.listProviders({});
        return json({ data: providers.map(presentProvider) });
      },
    },
    {
      method: "GET",
      pattern: "/providers/:provider",
      handler: async ({ clients, params }) => {
        const { providers } = await clients.connection.listProviders({});
        const provider = providers.find((p) => p.name === params.provider);
        if (!provider) return errorResponse(404, "unknown_provider", `Unknown provider "${params.provider}".`);
        return json({ data: presentProvider(provider) });
      },
    },
  ];
}
