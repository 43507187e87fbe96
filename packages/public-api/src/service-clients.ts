import { type Client, createClient, type Transport } from "@connectrpc/connect";
import { ChannelService } from "@junction/contracts/channel/v1/channel_service_pb";
import { ConnectionService } from "@junction/contracts/connection/v1/connection_service_pb";
import { ProxyService } from "@junction/contracts/proxy/v1/proxy_service_pb";
import { ScriptsService } from "@junction/contracts/scripts/v1/scripts_service_pb";
import { WebhookService } from "@junction/contracts/webhook/v1/webhook_service_pb";

/** Typed clients of every Connect service, as the gateway and the scripts runtime call them. */
export interface ServiceClients {
  connection: Client<typeof ConnectionService>;
  proxy: Client<typeof ProxyService>;
  channel: Client<typeof ChannelService>;
  webhook: Client<typeof WebhookService>;
  scripts: Client<typeof ScriptsService>;
}

/** Clients over one transport (embedded) or one per service (distributed). */
export function createServiceClients(
  transports:
    | Transport
    | { connection: Transport; proxy: Transport; channel: Transport; webhook: Transport; scripts: Transport },
): ServiceClients {
  const t =
    "unary" in transports
      ? { connection: transports, proxy: transports, channel: transports, webhook: transports, scripts: transports }
      : transports;
  return {
    connection: createClient(ConnectionService, t.connection),
    proxy: createClient(ProxyService, t.proxy),
    channel: createClient(ChannelService, t.channel),
    webhook: createClient(WebhookService, t.webhook),
    scripts: createClient(ScriptsService, t.scripts),
  };
}
