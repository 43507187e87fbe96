/**
 * `bun run openapi`: writes docs/openapi.json, the OpenAPI document of the gateway's routes (the one
 * GET /openapi.json serves, with the default base URL as its server). scripts/test.sh checks it is current.
 */
import { join } from "node:path";
import { createLogger } from "@junction/platform";
import type { GatewayClients } from "../clients.ts";
import { createGateway } from "../gateway.ts";
import { openApiDocument, undocumentedRoutes } from "./openapi-document.ts";

/** The embedded default's base URL (PORT 3003). */
export const DOCUMENT_SERVER_URL = "http://localhost:3003";

/** The document of a gateway's routes as docs/openapi.json holds it. */
export function openApiFileText(): string {
  // Building the routes calls no service: the clients are never used.
  const gateway = createGateway({
    clients: {} as GatewayClients,
    baseUrl: DOCUMENT_SERVER_URL,
    logger: createLogger({ sink: () => {} }),
  });
  const missing = undocumentedRoutes(gateway.routes());
  if (missing.length > 0) {
    throw new Error(
      `Routes without a doc (see the Route type in gateway/src/router.ts): ${missing.map((r) => `${r.method} ${r.pattern}`).join(", ")}`,
    );
  }
  return `${JSON.stringify(openApiDocument(gateway.routes(), DOCUMENT_SERVER_URL), null, 2)}\n`;
}

if (import.meta.main) {
  const path = join(import.meta.dir, "../../../docs/openapi.json");
  await Bun.write(path, openApiFileText());
  console.log(`wrote ${path}`);
}
