import type { CallOptions, Client } from "@connectrpc/connect";
import type { ScriptsService } from "@junction/contracts/scripts/v1/scripts_service_pb";
import { ExpiringCache } from "@junction/platform";
import type { MatchedNotification, NotificationSink, SinkResult } from "@junction/wiring";

/** The part of the scripts client the sink uses. */
export type NotificationDispatcher = Pick<Client<typeof ScriptsService>, "dispatchNotification">;

export interface ScriptsSinkOptions {
  /** How long "this integration has no webhook subscriptions" is remembered (0: asked every time). */
  cacheMs?: number;
  now?: () => number;
  /** Deadline of one DispatchNotification call. */
  timeoutMs?: number;
}

/** Integrations without subscriptions remembered at most. */
const MAX_REMEMBERED = 10_000;

/**
 * The webhook service's notification sink for scripts (spec: Customer-side scripts, last paragraph):
 * every matched notification goes to the scripts service, which starts the onWebhook runs of the
 * syncs subscribed to it and answers which connections they handle (those are not forwarded). When
 * the scripts service cannot be reached the sink throws, and the webhook service processes the
 * notification again later: it is neither lost nor forwarded behind a subscribed sync's back.
 * Integrations without subscriptions are remembered for `cacheMs`, so that they cost no call per
 * notification (a sync deployed meanwhile gets notifications at most that much later); at most
 * MAX_REMEMBERED of them, oldest out.
 */
export function scriptsNotificationSink(
  scripts: NotificationDispatcher,
  options: ScriptsSinkOptions = {},
): NotificationSink {
  const cacheMs = options.cacheMs ?? 1000;
  const now = options.now ?? Date.now;
  const callOptions: CallOptions = { timeoutMs: options.timeoutMs ?? 30_000 };
  const unsubscribed = new ExpiringCache<string, true>({ maxEntries: MAX_REMEMBERED, now });
  return {
    name: "scripts",
    async onNotification(n: MatchedNotification): Promise<SinkResult | undefined> {
      const key = `${n.environmentId}\n${n.providerConfigKey}`;
      if (unsubscribed.get(key) !== undefined) return undefined;
      const res = await scripts.dispatchNotification(
        {
          notificationId: n.notificationId,
          providerConfigKey: n.providerConfigKey,
          provider: n.provider,
          headers: { ...n.headers },
          connectionIds: [...n.connectionIds],
          receivedAtMs: BigInt(n.receivedAt),
        },
        callOptions,
      );
      if (res.integrationHasSubscriptions || cacheMs === 0) unsubscribed.delete(key);
      else unsubscribed.set(key, true, now() + cacheMs);
      return { handledConnectionIds: res.handledConnectionIds };
    },
  };
}
