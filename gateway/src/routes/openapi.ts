import { openApiDocument } from "../openapi/openapi-document.ts";
import type { Route } from "../router.ts";

/**
 * GET /openapi.json: the OpenAPI 3.1 document of the REST API, public like Nango's (it holds no data,
 * only the shapes). Built on first request from the routes' docs and kept: no route does any of it.
 */
export function openApiRoutes(options: { routes: () => readonly Route[]; baseUrl: string }): Route[] {
  let body: string | undefined;
  return [
    {
      method: "GET",
      pattern: "/openapi.json",
      auth: false,
      handler: async () => {
        body ??= JSON.stringify(openApiDocument(options.routes(), options.baseUrl));
        return new Response(body, {
          headers: { "content-type": "application/json", "cache-control": "public, max-age=300" },
        });
      },
      doc: {
        summary: "This document",
        description: "The OpenAPI 3.1 document of Junction's REST API. No secret key needed.",
        tags: ["Meta"],
        responses: { 200: { description: "The OpenAPI 3.1 document.", contentType: "application/json" } },
        errors: [],
      },
    },
  ];
}
