import type { ProviderDefinitionInput } from "../definition/provider-definition.ts";

const OAUTH = "https://developers.hubspot.com/docs/api/oauth-quickstart-guide";
// SCOPES: https://developers.hubspot.com/docs/api/scopes

/** HubSpot; proxy paths are the API's ("/crm/v3/objects/contacts"). */
export const hubspot = {
  name: "hubspot",
  displayName: "HubSpot",
  authMode: "OAUTH2",
  docsUrl: OAUTH,
  // OAUTH: users consent at https://app.hubspot.com/oauth/authorize; tokens from
  // https://api.hubapi.com/oauth/v1/token (access tokens expire, refresh tokens do not).
  authorizationUrl: "https://app.hubspot.com/oauth/authorize",
  tokenUrl: "https://api.hubapi.com/oauth/v1/token",
  baseUrl: "https://api.hubapi.com",
  scopeSeparator: "space",
  // SCOPES: HubSpot does not classify its scopes' sensitivity.
  scopes: [
    { name: "oauth", description: "Basic OAuth access (required by every app)." },
    { name: "crm.objects.contacts.read", description: "View contacts." },
    { name: "crm.objects.contacts.write", description: "Create, delete or change contacts." },
    { name: "crm.objects.companies.read", description: "View companies." },
    { name: "crm.objects.companies.write", description: "Create, delete or change companies." },
    { name: "crm.objects.deals.read", description: "View deals." },
    { name: "crm.objects.deals.write", description: "Create, delete or change deals." },
    { name: "crm.schemas.contacts.read", description: "View the contacts' property schema." },
    { name: "tickets", description: "Read, create and update tickets." },
  ],
  defaultScopes: ["oauth", "crm.objects.contacts.read"],
  identity: {
    url: "/account-info/v3/details",
    idPath: "portalId",
    docsUrl: "https://developers.hubspot.com/docs/api/settings/account-information-api",
  },
  // PAGINATION: https://developers.hubspot.com/docs/api/crm/understanding-the-crm#paging-through-results (as Nango's providers.yaml, proxy.paginate)
  paginate: {
    type: "cursor",
    cursor_name_in_request: "after",
    cursor_path_in_response: "paging.next.after",
    response_path: "results",
    limit_name_in_request: "limit",
  },
} satisfies ProviderDefinitionInput;
