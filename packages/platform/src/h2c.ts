/**
 * Connect over h2c (HTTP/2 without TLS) between the processes of the distributed topology. Not
 * exported from the package index: the embedded default never loads Node's HTTP/2 stack or
 * connect-node (import "@junction/platform/h2c").
 */
import http2 from "node:http2";
import type { AddressInfo } from "node:net";
import type { ConnectRouter, Interceptor, Transport } from "@connectrpc/connect";
import { connectNodeAdapter, createConnectTransport } from "@connectrpc/connect-node";
import { transportFailures } from "./transport-failure.ts";
import { RPC_BINARY_OPTIONS } from "./json-depth.ts";

/** A running h2c server for one service process. */
export interface ServiceServer {
  port: number;
  url: string;
  close(): Promise<void>;
}

/** Serves Connect routes over h2c (HTTP/2 without TLS) on `port` (0 for a free port). */
export async function serveH2c(
  routes: (router: ConnectRouter) => void,
  options: { port: number; host?: string; interceptors?: Interceptor[] },
): Promise<ServiceServer> {
  const handler = connectNodeAdapter({
    routes,
    interceptors: options.interceptors ?? [],
    binaryOptions: RPC_BINARY_OPTIONS,
  });
  const server = http2.createServer(handler);
  const host = options.host ?? "127.0.0.1";
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `http://${host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Open sessions keep the server alive; closing them lets shutdown finish.
        setTimeout(() => resolve(), 2000).unref();
      }),
  };
}

/**
 * A Connect client transport to a service process over h2c. A call whose connection fails (the peer
 * killed, refused, reset) fails Unavailable (transport-failure.ts).
 */
export function h2cTransport(baseUrl: string, interceptors: Interceptor[] = []): Transport {
  return createConnectTransport({
    baseUrl,
    httpVersion: "2",
    useBinaryFormat: true,
    interceptors: [transportFailures(), ...interceptors],
    binaryOptions: RPC_BINARY_OPTIONS,
  });
}
