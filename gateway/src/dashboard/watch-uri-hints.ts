import { matchKeyMetadata } from "@junction/providers";
import type { GatewayClients } from "../clients.ts";

/** The resource-URI header names tried, in order: the template's own name is added before these. */
const SPEC_RESOURCE_URI_HEADER = "x-provider-resource-uri";
/** Connections looked at per page, and at most this many pages: the hint is on demand, for one message. */
const PAGE = 1000;
const MAX_PAGES = 20;
const DECODE_ROUNDS = 3;

export interface NearMatch {
  connection_id: string;
  /** The URI as the connection lists it in a watch-URI metadata key (the providers' `watch_uris` match key). */
  listed_uri: string;
}

export interface WatchUriHint {
  resource_uri: string | null;
  near_matches: NearMatch[];
  /** Connections of the integration compared; `complete` is false when there were more than could be read. */
  scanned: number;
  complete: boolean;
}

/**
 * The form two URIs are compared in for the hint: percent-decoded (repeatedly, so double encoding
 * counts too; malformed sequences are left as they are), scheme and host lower-cased. Matching itself
 * compares exact strings (spec: Webhook-to-connection matching, rule 1): this only explains a miss.
 */
export function decodedForm(uri: string): string {
  let current = uri;
  for (let i = 0; i < DECODE_ROUNDS && current.includes("%"); i++) {
    const next = current.replace(/(?:%[0-9a-f]{2})+/gi, (run) => {
      try {
        return decodeURIComponent(run);
      } catch {
        return run;
      }
    });
    if (next === current) break;
    current = next;
  }
  return current.replace(/^([a-z][a-z0-9+.-]*:\/\/[^/?#]*)/i, (authority) => authority.toLowerCase());
}

/**
 * Listed URIs that differ from `resourceUri` as strings but equal it once decoded: the notification
 * missed rule 1 only because of encoding (e.g. `alice%40example.com` against `alice@example.com`).
 */
export function nearMatches(
  resourceUri: string,
  connections: { connectionId: string; watchUris: string[] }[],
): NearMatch[] {
  const target = decodedForm(resourceUri);
  const out: NearMatch[] = [];
  for (const c of connections) {
    for (const listed of c.watchUris) {
      if (listed !== resourceUri && decodedForm(listed) === target) {
        out.push({ connection_id: c.connectionId, listed_uri: listed });
      }
    }
  }
  return out;
}

/** The resource URI a forwarded message's payload carries (the template's header name first, then the spec's). */
export function resourceUriOf(body: string, templateHeader: string | undefined): string | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return null;
  }
  const payload = (parsed as { payload?: unknown } | null)?.payload;
  if (!payload || typeof payload !== "object") return null;
  for (const name of [templateHeader?.toLowerCase(), SPEC_RESOURCE_URI_HEADER]) {
    const v = name ? (payload as Record<string, unknown>)[name] : undefined;
    if (typeof v === "string" && v.trim() !== "") return v;
  }
  return null;
}

/**
 * The hint for one delivery-log message: connections of its integration listing its resource URI in
 * another encoding. Reads the integration's connections page by page (at most MAX_PAGES × PAGE).
 */
export async function watchUriHint(clients: GatewayClients, messageId: string): Promise<WatchUriHint> {
  const { message } = await clients.webhook.getMessage({ id: messageId });
  if (message?.type !== "forward" || message.providerConfigKey === "") {
    return { resource_uri: null, near_matches: [], scanned: 0, complete: true };
  }
  const { integration } = await clients.connection.getIntegration({ uniqueKey: message.providerConfigKey });
  const { providers } = await clients.connection.listProviders({});
  const template = providers.find((p) => p.name === integration?.provider);
  const resourceUri = resourceUriOf(message.body, template?.webhookHeaders.resourceUri);
  if (resourceUri === null) return { resource_uri: null, near_matches: [], scanned: 0, complete: true };
  const found: NearMatch[] = [];
  let scanned = 0;
  for (let page = 0; page < MAX_PAGES; page++) {
    const res = await clients.connection.listConnections({
      providerConfigKey: message.providerConfigKey,
      limit: PAGE,
      page,
    });
    scanned += res.connections.length;
    found.push(
      ...nearMatches(
        resourceUri,
        res.connections.map((c) => ({ connectionId: c.connectionId, watchUris: listedUris(c.metadata) })),
      ),
    );
    if (scanned >= res.total || res.connections.length === 0) {
      return { resource_uri: resourceUri, near_matches: found, scanned, complete: true };
    }
  }
  return { resource_uri: resourceUri, near_matches: found, scanned, complete: false };
}

/** The metadata keys providers declare as watch URIs (matching rule 1). */
const WATCH_URI_KEYS = matchKeyMetadata("watch_uris");

function listedUris(metadata: unknown): string[] {
  const out = new Set<string>();
  for (const key of WATCH_URI_KEYS) {
    const v = (metadata as Record<string, unknown> | undefined)?.[key];
    if (Array.isArray(v)) for (const x of v) if (typeof x === "string") out.add(x);
  }
  return [...out];
}
