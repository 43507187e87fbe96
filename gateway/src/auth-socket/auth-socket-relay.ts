import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { type Bus, type Subscription, subjects } from "@junction/bus";
import { AuthSocketResultSchema } from "@junction/contracts/events/v1/events_pb";
import type { Logger } from "@junction/platform";
import type { AuthSocketHub } from "./auth-socket-hub.ts";

/**
 * Carries an authorization's result to the socket waiting for it: to this process's socket when it
 * holds it, else over the bus to every gateway process, each delivering to the sockets it holds (the
 * callback may be served by another process than the one the browser's socket reached). Not durable:
 * a result nobody holds a socket for is dropped.
 */
export class AuthSocketRelay {
  private subscription: Subscription | undefined;

  constructor(
    private readonly hub: AuthSocketHub,
    private readonly logger: Logger,
    private readonly bus?: Bus,
  ) {}

  /** Listens for results published by other gateway processes. */
  async start(): Promise<void> {
    if (!this.bus || this.subscription) return;
    this.subscription = await this.bus.subscribe(subjects.authSocketResult(), (msg) => {
      try {
        const result = fromBinary(AuthSocketResultSchema, msg.data);
        this.hub.deliver(result.wsClientId, result.message);
      } catch (err) {
        this.logger.warn("auth socket result unreadable", { error: err });
      }
    });
  }

  /** Sends `message` to the socket `wsClientId`, wherever it is held; never throws (the page is answered anyway). */
  async push(wsClientId: string, message: string): Promise<void> {
    if (wsClientId === "" || this.hub.deliver(wsClientId, message)) return;
    if (!this.bus) return;
    try {
      const data = toBinary(AuthSocketResultSchema, create(AuthSocketResultSchema, { wsClientId, message }));
      await this.bus.publish(subjects.authSocketResult(), data);
    } catch (err) {
      this.logger.warn("auth socket result not published", { error: err });
    }
  }

  async stop(): Promise<void> {
    await this.subscription?.stop();
    this.subscription = undefined;
  }
}
