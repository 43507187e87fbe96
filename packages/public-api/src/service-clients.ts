import { type Client, createClient, type Transport } from "@connectrpc/connect";
import { ChannelService } from "@junction/contracts/channel/v1/channel_service_pb";
import { ConnectionService } from "@junction/contracts/connection/v1/connection_service_pb";
import { LogsService } from "@junction/contracts/logs/v1/logs_service_pb";
import { ProxyService } from "@junction/contracts/proxy/v1/proxy_service_pb";
import { ScriptsService } from "@junction/contracts/scripts/v1/scripts_service_pb";
import { WebhookService } from "@junction/contracts/webhook/v1/webhook_service_pb";

/**
 * The Connect service each of Junction's services serves, by name: the one list the clients, the
 * service table (cli/src/wiring/service-table.ts) and the wiring of tests are derived from. A new
 * service is one line here; the compiler then asks for its entry in the service table.
 */
export const SERVICE_DEFINITIONS = {
  connection: ConnectionService,
  proxy: ProxyService,
  channel: ChannelService,
  webhook: WebhookService,
  scripts: ScriptsService,
  logs: LogsService,
} as const;

/** A service reached over Connect. */
export type ServiceKey = keyof typeof SERVICE_DEFINITIONS;

/** Every service's name, in the order of SERVICE_DEFINITIONS. */
export const SERVICE_KEYS = Object.keys(SERVICE_DEFINITIONS) as readonly ServiceKey[];

/** Typed clients of every Connect service, as the gateway and the scripts runtime call them. */
export type ServiceClients = { [K in ServiceKey]: Client<(typeof SERVICE_DEFINITIONS)[K]> };

/** Clients over one transport (embedded) or one per service (distributed). */
export function createServiceClients(transports: Transport | Readonly<Record<ServiceKey, Transport>>): ServiceClients {
  const transportOf = (name: ServiceKey) => ("unary" in transports ? (transports as Transport) : transports[name]);
  const clients: Partial<Record<ServiceKey, unknown>> = {};
  for (const name of SERVICE_KEYS) clients[name] = createClient(SERVICE_DEFINITIONS[name], transportOf(name));
  return clients as ServiceClients;
}
