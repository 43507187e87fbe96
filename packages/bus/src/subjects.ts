/**
 * Every subject and queue name Junction uses, built in one place and versioned (`junction.v1.`).
 * Events are published on subjects; work goes through durable queues.
 */
const ROOT = "junction.v1";

export const subjects = {
  /** A new connection (payload: events.v1.ConnectionCreated). */
  connectionCreated: (providerConfigKey = "*") => `${ROOT}.connection.created.${token(providerConfigKey)}`,
  /** An existing connection authorized again (events.v1.ConnectionReauthorized). */
  connectionReauthorized: (providerConfigKey = "*") => `${ROOT}.connection.reauthorized.${token(providerConfigKey)}`,
  /** A connection about to be deleted (events.v1.ConnectionDeleting). */
  connectionDeleting: (providerConfigKey = "*") => `${ROOT}.connection.deleting.${token(providerConfigKey)}`,
  /** A channel watch or stop call seen through the proxy (events.v1.ChannelObserved). */
  channelObserved: (providerConfigKey = "*") => `${ROOT}.channel.observed.${token(providerConfigKey)}`,
  /**
   * The end of a browser authorization, for the gateway process holding the frontend SDK's WebSocket
   * (events.v1.AuthSocketResult); every gateway subscribes and delivers to the sockets it holds.
   */
  authSocketResult: () => `${ROOT}.auth.socket_result`,
  /** Every connection event, for subscribers that want them all. */
  allConnectionEvents: () => `${ROOT}.connection.>`,
} as const;

export const queues = {
  /** Inbound upstream notifications, recorded before the 200 (events.v1.NotificationReceived). */
  webhookInbound: "webhook.inbound",
  /** Messages to deliver to customer endpoints (events.v1.DeliveryRequested). */
  webhookDelivery: "webhook.delivery",
  /** Lifecycle script runs to perform (scripts runtime). */
  scriptRuns: "scripts.runs",
  /** Batches of operations each process recorded, for the logs service (logs.v1.OperationBatch). */
  logsOperations: "logs.operations",
} as const;

/** The JetStream subject that carries a durable queue's jobs. */
export function queueSubject(queue: string): string {
  return `${ROOT}.work.${queue}`;
}

/** Makes a value safe as one subject token: NATS tokens may not contain `.`, `*`, `>` or spaces. */
export function token(value: string): string {
  if (value === "*" || value === ">") return value;
  return value.replace(/[.*> \t\r\n]/g, (c) => `_${c.charCodeAt(0).toString(16)}`);
}
