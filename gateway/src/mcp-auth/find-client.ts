import { ClientMetadataError, isMetadataDocumentUrl, metadataDocumentClient } from "./client-metadata-document.ts";
import type { McpAuth } from "./mcp-auth.ts";
import type { McpOAuthClient } from "./mcp-auth-store.ts";

/**
 * The client a `client_id` names: a registered one, or the one its metadata document (an https URL)
 * describes. A string saying why not when there is none.
 */
export async function findClient(auth: McpAuth, clientId: string): Promise<McpOAuthClient | string> {
  if (isMetadataDocumentUrl(clientId)) {
    try {
      return await metadataDocumentClient(auth, clientId);
    } catch (err) {
      if (err instanceof ClientMetadataError) return `its client ID metadata document was refused: ${err.message}`;
      throw err;
    }
  }
  const client = await auth.store.getClient(clientId);
  return client?.kind === "dynamic" ? client : "it is not registered";
}

/** `base` with the query parameters added (a redirect to the client). */
export function withQuery(base: string, params: Record<string, string | undefined>): string {
  const url = new URL(base);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v);
  return url.href;
}
