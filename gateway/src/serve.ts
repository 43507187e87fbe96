import type { Server } from "bun";
import { type AuthSocketData, authSocketHandlers } from "./auth-socket/auth-sockets.ts";
import type { Gateway } from "./gateway.ts";

export interface RunningGateway {
  port: number;
  url: string;
  stop(): Promise<void>;
}

/** What is served: the routes, and the frontend SDK's WebSocket upgrade when there is one. */
export type Servable = Pick<Gateway, "fetch"> & {
  /** undefined once upgraded, a refusal, or false for a request that is not a socket's. */
  upgrade?(req: Request, server: Server<AuthSocketData>): Response | undefined | false;
};

/** Serves the gateway with Bun.serve (HTTP/1.1) on `port` (0 for a free one). */
export function serveGateway(gateway: Servable, options: { port: number; hostname?: string }): RunningGateway {
  const server = Bun.serve<AuthSocketData>({
    port: options.port,
    hostname: options.hostname ?? "0.0.0.0",
    // Proxy bodies stream; JSON routes enforce their own, smaller limits.
    maxRequestBodySize: 1024 * 1024 * 1024,
    idleTimeout: 120,
    fetch: (req, srv) => {
      if (gateway.upgrade === undefined) return gateway.fetch(req);
      const upgraded = gateway.upgrade(req, srv);
      return upgraded === false ? gateway.fetch(req) : upgraded;
    },
    websocket: authSocketHandlers,
    error: () =>
      new Response(JSON.stringify({ error: { code: "internal_error", message: "Internal error." } }), {
        status: 500,
        headers: { "content-type": "application/json" },
      }),
  });
  const port = server.port as number;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    stop: async () => {
      await server.stop(true);
    },
  };
}
