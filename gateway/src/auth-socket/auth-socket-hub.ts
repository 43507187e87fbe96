import { type Clock, randomToken, type TimerHandle } from "@junction/platform";
import { connectionAck } from "./auth-socket-messages.ts";

/** What the hub needs of a socket (Bun's ServerWebSocket, or a test's fake). */
export interface AuthSocket {
  readonly data: { id: string };
  send(text: string): unknown;
  close(code?: number, reason?: string): void;
}

export interface AuthSocketHubOptions {
  clock: Clock;
  /** A socket is closed this long after it opened, whatever it waits for. */
  lifetimeMs: number;
  /** Sockets held at once; an upgrade past it is refused. */
  maxSockets: number;
}

interface Held {
  socket: AuthSocket;
  timer: TimerHandle;
}

/** A fresh, unguessable socket id (Nango's ws_client_id). */
export function newAuthSocketId(): string {
  return randomToken(24);
}

/**
 * The frontend SDK's WebSockets held by this gateway process, by id: each gets `connection_ack` with its
 * id, then at most one result, and is closed after it or after its lifetime. A socket's own messages
 * are ignored: it gives nothing to whoever holds it but the result of the authorization started with
 * its id.
 */
export class AuthSocketHub {
  private readonly held = new Map<string, Held>();

  constructor(private readonly options: AuthSocketHubOptions) {}

  /** How many sockets are held. */
  get size(): number {
    return this.held.size;
  }

  /** Whether one more socket may open. */
  hasRoom(): boolean {
    return this.held.size < this.options.maxSockets;
  }

  /** A socket opened: held until its lifetime ends, and told its id. */
  opened(socket: AuthSocket): void {
    if (!this.hasRoom()) {
      socket.close(1013, "too many sockets");
      return;
    }
    const { id } = socket.data;
    const timer = this.options.clock.setTimer(() => {
      if (this.held.get(id)?.socket !== socket) return;
      this.held.delete(id);
      socket.close(1000, "authorization lifetime over");
    }, this.options.lifetimeMs);
    this.held.set(id, { socket, timer });
    socket.send(connectionAck(id));
  }

  /** A socket closed (by the browser or by the hub). */
  closed(socket: AuthSocket): void {
    const entry = this.held.get(socket.data.id);
    if (entry?.socket !== socket) return;
    entry.timer.cancel();
    this.held.delete(socket.data.id);
  }

  /** Sends `message` to the socket `id` if this process holds it, then closes it. Whether it was held. */
  deliver(id: string, message: string): boolean {
    const entry = this.held.get(id);
    if (!entry) return false;
    this.held.delete(id);
    entry.timer.cancel();
    entry.socket.send(message);
    entry.socket.close(1000, "done");
    return true;
  }

  /** Closes every socket (the process stops). */
  closeAll(): void {
    for (const { socket, timer } of this.held.values()) {
      timer.cancel();
      socket.close(1001, "going away");
    }
    this.held.clear();
  }
}
