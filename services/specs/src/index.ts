// The service table's entries for the services layer (cli/src/wiring/service-table.ts lists them with the
// scripts service's): each says what its service needs, how its settings are read and how it is built.
// The services' test kits build the ones they need from here, with an in-memory wiring.
export { channelSpec } from "./channel-spec.ts";
export { type ConnectionServiceConfig, connectionSpec } from "./connection-spec.ts";
export { logsSpec } from "./logs-spec.ts";
export { proxySpec } from "./proxy-spec.ts";
export { type WebhookConfig, type WebhookExtras, webhookSpec } from "./webhook-spec.ts";
