import { ExpiringCache, type Logger, TokenBuckets } from "@junction/platform";
import type { IntakeConfig } from "../config.ts";
import type { WebhookDeliveryStore } from "../store/store.ts";
import { PendingWork } from "./pending-work.ts";

/** A refusal for now: intake records nothing and the gateway answers 503 with Retry-After. */
export interface Throttle {
  /** Stable: webhook_rate_limited, channel_rate_limited or webhook_backlog_full. */
  code: string;
  message: string;
  retryAfterSeconds: number;
}

/** Integrations tracked for their rate at once (there are few; this bounds the map). */
const MAX_INTEGRATIONS = 10_000;
/** One warning per integration and refusal code per this long: a flood does not flood the log. */
const WARN_EVERY_MS = 60_000;

/**
 * Intake limits of the webhook URL: a token bucket per integration and per
 * channel on the injected clock, and a cap on each integration's pending work. Every map here is
 * bounded by configuration (`IntakeConfig`), so memory is too, whatever arrives.
 */
export class IntakeLimits {
  readonly pending: PendingWork;
  private readonly integrations: TokenBuckets<string>;
  private readonly channels: TokenBuckets<string>;
  private readonly warned: ExpiringCache<string, true>;

  constructor(
    private readonly config: IntakeConfig,
    store: Pick<WebhookDeliveryStore, "countPending">,
    private readonly logger: Logger,
    now: () => number,
  ) {
    const { integrationRatePerSecond: rate, integrationBurst: burst } = config;
    this.integrations = new TokenBuckets(rate, burst, MAX_INTEGRATIONS);
    this.channels = new TokenBuckets(config.channelRatePerSecond, config.channelBurst, config.trackedChannels);
    this.pending = new PendingWork(store, config.maxPendingPerIntegration, config.pendingRecountMs, now);
    this.warned = new ExpiringCache({ maxEntries: MAX_INTEGRATIONS, now });
  }

  /**
   * Before a request is read: null when its integration is under its rate and its pending work under
   * the cap. A promise only when the store must count the integration's messages again.
   */
  admit(environmentId: string, providerConfigKey: string, now: number): Throttle | null | Promise<Throttle | null> {
    const wait = this.integrations.waitMs(`${environmentId}\n${providerConfigKey}`, now);
    if (wait > 0) {
      const rate = this.config.integrationRatePerSecond;
      return this.refuse(providerConfigKey, now, {
        code: "webhook_rate_limited",
        message: `This integration receives notifications faster than its limit (${rate} a second); nothing was recorded. Send it again after Retry-After.`,
        retryAfterSeconds: seconds(wait),
      });
    }
    const full = this.pending.full(environmentId, providerConfigKey, now);
    if (full === false) return null;
    if (full === true) return this.backlogFull(providerConfigKey, now);
    return full.then((f) => (f ? this.backlogFull(providerConfigKey, now) : null));
  }

  /**
   * What is about to be recorded (one entry per item, its channel id when it names one; none for a
   * handshake): refused for now when a channel is over its rate, its tokens taken otherwise. A batch
   * is refused whole, before anything is recorded (the upstream resends it whole).
   */
  take(
    environmentId: string,
    providerConfigKey: string,
    channelIds: readonly (string | undefined)[],
    now: number,
  ): Throttle | null {
    const prefix = `${environmentId}\n${providerConfigKey}\n`;
    for (const id of channelIds) {
      if (id === undefined) continue;
      const wait = this.channels.waitMs(prefix + id, now);
      if (wait > 0) {
        return this.refuse(providerConfigKey, now, {
          code: "channel_rate_limited",
          message: `A channel of this notification receives them faster than its limit (${this.config.channelRatePerSecond} a second); nothing was recorded. Send it again after Retry-After.`,
          retryAfterSeconds: seconds(wait),
        });
      }
    }
    this.integrations.take(`${environmentId}\n${providerConfigKey}`, Math.max(1, channelIds.length), now);
    for (const id of channelIds) if (id !== undefined) this.channels.take(prefix + id, 1, now);
    return null;
  }

  private backlogFull(providerConfigKey: string, now: number): Throttle {
    return this.refuse(providerConfigKey, now, {
      code: "webhook_backlog_full",
      message: `This integration has ${this.config.maxPendingPerIntegration} or more notifications and messages not yet processed; nothing more is recorded until they are. Send it again after Retry-After.`,
      retryAfterSeconds: seconds(this.config.fullRetryAfterMs),
    });
  }

  private refuse(providerConfigKey: string, now: number, throttle: Throttle): Throttle {
    const key = `${providerConfigKey}\n${throttle.code}`;
    if (this.warned.get(key, now) === undefined) {
      this.warned.set(key, true, now + WARN_EVERY_MS);
      this.logger.warn("webhook intake refused notifications for now (503); more are not logged for a minute", {
        providerConfigKey,
        refusal: throttle.code,
        retryAfterSeconds: throttle.retryAfterSeconds,
      });
    }
    return throttle;
  }
}

/** Whole seconds for Retry-After, at least 1. */
const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));
