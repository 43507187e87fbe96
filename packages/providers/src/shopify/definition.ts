import type { ProviderDefinitionInput } from "../definition/provider-definition.ts";

const OAUTH = "https://shopify.dev/docs/apps/build/authentication-authorization/access-tokens/authorization-code-grant";
// SCOPES: https://shopify.dev/docs/api/usage/access-scopes

/** Shopify's Admin API for one shop, asked on the connect page ("/admin/api/2025-07/shop.json"). */
export const shopify = {
  name: "shopify",
  displayName: "Shopify",
  authMode: "OAUTH2",
  docsUrl: OAUTH,
  // OAUTH: https://{shop}.myshopify.com/admin/oauth/authorize and POST .../admin/oauth/access_token;
  // the token is sent in the X-Shopify-Access-Token header.
  authorizationUrl: "https://{shop}.myshopify.com/admin/oauth/authorize",
  tokenUrl: "https://{shop}.myshopify.com/admin/oauth/access_token",
  baseUrl: "https://{shop}.myshopify.com",
  accessToken: { in: "header", name: "X-Shopify-Access-Token", prefix: "" },
  // OAUTH: "scope: A comma-separated list of scopes"; no PKCE in the grant.
  scopeSeparator: "comma",
  pkce: "refused",
  // SCOPES: Shopify does not classify its scopes' sensitivity.
  scopes: [
    { name: "read_products", description: "Read products, variants and collections." },
    { name: "write_products", description: "Modify products, variants and collections." },
    { name: "read_orders", description: "Read orders of the last 60 days." },
    { name: "write_orders", description: "Modify orders." },
    { name: "read_customers", description: "Read customers." },
    { name: "write_customers", description: "Modify customers." },
    { name: "read_inventory", description: "Read inventory levels and items." },
  ],
  defaultScopes: ["read_products"],
  connectFields: [
    {
      key: "shop",
      label: "Shop name (the name before .myshopify.com)",
      docsUrl: "https://help.shopify.com/en/manual/domains",
    },
  ],
  identity: {
    url: "/admin/api/2025-07/shop.json",
    idPath: "shop.id",
    docsUrl: "https://shopify.dev/docs/api/admin-rest/latest/resources/shop",
  },
} satisfies ProviderDefinitionInput;
