import type { Bus } from "@junction/bus";
import type { Clock, Logger } from "@junction/platform";
import type { Server, WebSocketHandler } from "bun";
import { errorResponse } from "../http/error-response.ts";
import { AuthSocketHub, newAuthSocketId } from "./auth-socket-hub.ts";
import { AuthSocketRelay } from "./auth-socket-relay.ts";
import { type AuthSocketSettings, DEFAULT_AUTH_SOCKET_SETTINGS } from "./auth-socket-settings.ts";

/** What a socket carries: its id and the hub holding it. */
export interface AuthSocketData {
  id: string;
  hub: AuthSocketHub;
}

/** The SDK never sends; a socket sending more than this is closed by the server. */
const MAX_INBOUND_BYTES = 1024;

/** Bun.serve's WebSocket handlers: the same for every gateway, the socket's data names its hub. */
export const authSocketHandlers: WebSocketHandler<AuthSocketData> = {
  open: (ws) => ws.data.hub.opened(ws),
  // Whatever a socket sends is ignored: it asks nothing and is given nothing but its result.
  message: () => {},
  close: (ws) => ws.data.hub.closed(ws),
  maxPayloadLength: MAX_INBOUND_BYTES,
};

/** The gateway's frontend-SDK WebSockets: the upgrade at `/` (and the configured path), and the results. */
export class AuthSockets {
  readonly hub: AuthSocketHub;
  readonly relay: AuthSocketRelay;
  /** The configured path (JUNCTION_WEBSOCKETS_PATH; "/" by default): what GET /connect/session names as `websocketsPath`. */
  readonly path: string;
  private readonly paths: Set<string>;

  constructor(options: { clock: Clock; logger: Logger; bus?: Bus; settings?: AuthSocketSettings }) {
    const settings = options.settings ?? DEFAULT_AUTH_SOCKET_SETTINGS;
    this.hub = new AuthSocketHub({
      clock: options.clock,
      lifetimeMs: settings.lifetimeMs,
      maxSockets: settings.maxSockets,
    });
    this.relay = new AuthSocketRelay(this.hub, options.logger, options.bus);
    this.path = settings.path;
    this.paths = new Set(["/", settings.path]);
  }

  /**
   * Upgrades a WebSocket request at one of the socket paths: undefined once upgraded, a refusal, or
   * false when the request is not one (it goes to the routes: a plain GET / is served as before).
   */
  upgrade(req: Request, server: Server<AuthSocketData>): Response | undefined | false {
    if (req.method !== "GET" || req.headers.get("upgrade")?.toLowerCase() !== "websocket") return false;
    const path = pathOf(req.url);
    if (path === undefined || !this.paths.has(path)) return false;
    if (!this.hub.hasRoom()) {
      return errorResponse(503, "too_many_sockets", "Too many WebSockets are open on this gateway; retry later.");
    }
    const data: AuthSocketData = { id: newAuthSocketId(), hub: this.hub };
    if (server.upgrade(req, { data })) return undefined;
    return errorResponse(400, "invalid_websocket_upgrade", "The WebSocket upgrade request is not valid.");
  }

  start(): Promise<void> {
    return this.relay.start();
  }

  async stop(): Promise<void> {
    await this.relay.stop();
    this.hub.closeAll();
  }
}

/** The path of a request URL (without its query), or undefined when it does not parse. */
function pathOf(url: string): string | undefined {
  try {
    const path = new URL(url).pathname;
    return path.length > 1 ? path.replace(/\/+$/, "") : path;
  } catch {
    return undefined;
  }
}
