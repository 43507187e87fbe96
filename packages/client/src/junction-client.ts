import { createClient, type Interceptor } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import {
  PUBLIC_RPC_METHODS,
  type PublicClients,
  type PublicServiceKey,
  publicServiceDefinition,
  RPC_PREFIX,
} from "@junction/public-api/public-rpc";

/** Typed clients of Junction's public RPCs: `connection`, `webhook` (deliveries), `channel`, `scripts`. */
export type JunctionClient = PublicClients;

export interface JunctionClientOptions {
  /** Protobuf's binary encoding instead of JSON (smaller bodies; JSON is easier to read in a proxy's log). */
  binary?: boolean;
  /** Per-call deadline in milliseconds when a call names none. */
  timeoutMs?: number;
}

/**
 * Typed clients of a Junction's public RPCs (docs/rpc.md) at `baseUrl` (its {base_url}, e.g.
 * `http://127.0.0.1:3003`), with a secret key: the Connect protocol over HTTP/1.1, from Node or Bun.
 * Each client has only the methods the gateway serves; a refused call throws a ConnectError whose
 * `junctionError(err).code` is the REST API's stable code.
 */
export function createJunctionClient(
  baseUrl: string,
  secretKey: string,
  options: JunctionClientOptions = {},
): JunctionClient {
  const authorize: Interceptor = (next) => (req) => {
    req.header.set("authorization", `Bearer ${secretKey}`);
    return next(req);
  };
  const transport = createConnectTransport({
    baseUrl: `${baseUrl.replace(/\/+$/, "")}${RPC_PREFIX}`,
    httpVersion: "1.1",
    useBinaryFormat: options.binary ?? false,
    interceptors: [authorize],
    defaultTimeoutMs: options.timeoutMs,
  });
  const clients: Partial<Record<PublicServiceKey, unknown>> = {};
  for (const key of Object.keys(PUBLIC_RPC_METHODS) as PublicServiceKey[]) {
    const full = createClient(publicServiceDefinition(key), transport) as Record<string, unknown>;
    // Only the public methods: an internal one is not on the client (and the gateway refuses it).
    clients[key] = Object.fromEntries(PUBLIC_RPC_METHODS[key].map((name) => [name, full[name]]));
  }
  return clients as JunctionClient;
}
