import type { NatsConnection } from "@nats-io/nats-core";
import { connect } from "@nats-io/transport-node";

/**
 * Connects to NATS (`servers` is a comma-separated list of URLs). It reconnects for ever, so that a
 * restarted server does not end the process's bus; other packages may put JetStream KV on the same
 * connection.
 */
export function connectNats(servers: string, name?: string): Promise<NatsConnection> {
  return connect({
    servers: servers
      .split(",")
      .map((s) => s.trim())
      .filter((s) => s !== ""),
    name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
  });
}
