import { Code, ConnectError } from "@connectrpc/connect";
import type { Integration, Provider } from "@junction/contracts/connection/v1/connection_service_pb";
import {
  headerNotificationReader,
  MAX_NOTIFICATION_BODY_BYTES,
  type NotificationAdapter,
  providerAdapter,
  providerSettings,
} from "@junction/providers";
import type { WebhookServiceDeps } from "../context.ts";

/** An integration as notification handling needs it. */
export interface IntegrationView {
  integration: Integration;
  /** Its provider template; undefined when the template is gone from the catalogue. */
  provider: Provider | undefined;
  /**
   * How an inbound notification is read: the provider adapter's `read`, or, for a provider without
   * one, the template's webhook header names and the spec's.
   */
  read: NotificationAdapter["read"];
  /** The integration's provider settings, the adapter's defaults applied. */
  settings: Readonly<Record<string, string>>;
  /** The most notifications one request may carry (the adapter's `maxItems`; 1 without one). */
  maxItems: number;
  /** The largest body accepted, in bytes (the adapter's; the common limit without one). */
  bodyLimitBytes: number;
}

/** The notification adapter of a provider: its adapter's, unless the service was given another (tests). */
export type NotificationAdapterOf = (provider: string) => NotificationAdapter | undefined;

const adapterNotifications: NotificationAdapterOf = (provider) => providerAdapter(provider)?.notifications;

/**
 * The integration `providerConfigKey`, or null when the connection service does not know it. Any
 * other failure (the service unreachable) is thrown: the caller must not treat it as unknown.
 */
export async function findIntegration(
  connections: WebhookServiceDeps["connections"],
  providerConfigKey: string,
  notificationsOf: NotificationAdapterOf = adapterNotifications,
): Promise<IntegrationView | null> {
  if (providerConfigKey === "") return null;
  try {
    const res = await connections.getIntegration({ uniqueKey: providerConfigKey });
    if (!res.integration) return null;
    const adapter = providerAdapter(res.integration.provider);
    const notifications = notificationsOf(res.integration.provider);
    return {
      integration: res.integration,
      settings: providerSettings(adapter, res.integration.providerSettings),
      provider: res.provider,
      read: notifications?.read ?? headerNotificationReader(res.provider?.webhookHeaders),
      maxItems: notifications?.maxItems ?? 1,
      bodyLimitBytes: notifications?.bodyLimitBytes ?? MAX_NOTIFICATION_BODY_BYTES,
    };
  } catch (err) {
    const code = ConnectError.from(err).code;
    if (code === Code.NotFound || code === Code.InvalidArgument) return null;
    throw err;
  }
}
