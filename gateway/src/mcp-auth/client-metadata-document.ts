import { readTextLimited } from "@junction/platform";
import { AddressRefusedError } from "@junction/platform/address-refused-error";
import type { McpAuth } from "./mcp-auth.ts";
import type { McpOAuthClient } from "./mcp-auth-store.ts";
import { redirectUriProblem } from "./oauth-answers.ts";

/** A metadata document is small (names and URLs): anything larger is refused unread. */
export const MAX_CLIENT_METADATA_BYTES = 5 * 1024;
/** How long a document read stays trusted before it is read again. */
export const CLIENT_METADATA_CACHE_MS = 3_600_000;
const FETCH_TIMEOUT_MS = 5_000;

/** A client id that is a client ID metadata document's URL: https with a path. */
export function isMetadataDocumentUrl(clientId: string): boolean {
  const url = URL.parse(clientId);
  return url !== null && url.protocol === "https:" && url.pathname !== "/" && url.hash === "";
}

/** Why a document was refused (the consent page names it; the client sees `invalid_client`). */
export class ClientMetadataError extends Error {}

/**
 * The client whose id is the URL of its metadata document (OAuth Client ID Metadata Document, as the
 * MCP authorization spec uses it): fetched through the outbound address policy, no redirects, at most
 * MAX_CLIENT_METADATA_BYTES, its `client_id` equal to the URL, its redirect URIs checked as a
 * registration's; cached for CLIENT_METADATA_CACHE_MS.
 */
export async function metadataDocumentClient(auth: McpAuth, clientId: string): Promise<McpOAuthClient> {
  const cached = await auth.store.getClient(clientId);
  if (cached?.kind === "metadata_document" && auth.now() - cached.savedAtMs < CLIENT_METADATA_CACHE_MS) return cached;
  const document = await readDocument(auth, clientId);
  const client: McpOAuthClient = {
    clientId,
    clientName: typeof document.client_name === "string" ? document.client_name.slice(0, 200) : new URL(clientId).host,
    redirectUris: checkedRedirectUris(document.redirect_uris),
    savedAtMs: auth.now(),
    kind: "metadata_document",
  };
  if (document.client_id !== clientId) {
    throw new ClientMetadataError("the document's client_id is not the URL it was read from");
  }
  await auth.store.putClient(client);
  return client;
}

async function readDocument(auth: McpAuth, clientId: string): Promise<Record<string, unknown>> {
  let res: Response;
  try {
    res = await auth.fetchClientMetadata(clientId, {
      headers: { accept: "application/json" },
      redirect: "manual",
      signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
    });
  } catch (err) {
    const refused = err instanceof AddressRefusedError;
    throw new ClientMetadataError(refused ? "its address is not allowed" : "it could not be fetched");
  }
  const tooLarge = new ClientMetadataError(`it is larger than ${MAX_CLIENT_METADATA_BYTES} bytes`);
  if (res.status !== 200) {
    await res.body?.cancel();
    throw new ClientMetadataError(`it answered HTTP ${res.status}`);
  }
  if (Number(res.headers.get("content-length") ?? "0") > MAX_CLIENT_METADATA_BYTES) {
    await res.body?.cancel();
    throw tooLarge;
  }
  const text = await readTextLimited(res.body, MAX_CLIENT_METADATA_BYTES, () => tooLarge);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ClientMetadataError("it is not JSON");
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new ClientMetadataError("it is not a JSON object");
  }
  return parsed as Record<string, unknown>;
}

function checkedRedirectUris(value: unknown): string[] {
  if (!Array.isArray(value) || value.length === 0 || value.length > 10) {
    throw new ClientMetadataError("redirect_uris must list 1 to 10 URIs");
  }
  for (const uri of value) {
    const problem = typeof uri === "string" ? redirectUriProblem(uri) : "is not a string";
    if (problem) throw new ClientMetadataError(`redirect URI ${String(uri).slice(0, 100)} ${problem}`);
  }
  return value as string[];
}
