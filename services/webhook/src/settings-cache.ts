import type { Clock, Encryptor } from "@junction/platform";
import { changeSettings, ensureSettings, type SettingsChange } from "./settings.ts";
import type { WebhookSettingsRecord } from "./store/records.ts";
import type { WebhookSettingsStore } from "./store/store.ts";

/**
 * How long a delivery round uses settings read before without reading them again. A change made in
 * this process is seen by its next round at once (`change`); one made by another process (another
 * webhook process on the same store, `junction rekey`) within this. A rotation is safe meanwhile: the
 * previous secret stays valid through its grace period.
 */
export const SETTINGS_FRESH_MS = 1000;

/**
 * The environments' webhook settings as delivery rounds use them: read once per SETTINGS_FRESH_MS
 * (by the injected clock) instead of once per message, and replaced by this process's own changes
 * as they are saved. The API's reads (GetSettings) and the changes' own reads go to the store.
 */
export class SettingsCache {
  private readonly remembered = new Map<string, { record: WebhookSettingsRecord; readAt: number }>();

  constructor(
    private readonly store: WebhookSettingsStore,
    private readonly encryptor: Encryptor,
    private readonly clock: Clock,
    private readonly freshMs = SETTINGS_FRESH_MS,
  ) {}

  /** The environment's settings for a round at `now` (created with a secret the first time). */
  async current(environmentId: string, now: number): Promise<WebhookSettingsRecord> {
    const hit = this.remembered.get(environmentId);
    // A clock set back is no reason to trust an old read longer.
    if (hit && now >= hit.readAt && now - hit.readAt < this.freshMs) return hit.record;
    const record = await ensureSettings(this.store, this.encryptor, environmentId, now);
    this.remember(record, now);
    return record;
  }

  /** `changeSettings`, its result what the next round uses. */
  async change(
    environmentId: string,
    change: (current: WebhookSettingsRecord, now: number) => Partial<SettingsChange>,
  ): Promise<WebhookSettingsRecord> {
    try {
      const record = await changeSettings(this.store, this.encryptor, this.clock, environmentId, change);
      this.remember(record, this.clock.now());
      return record;
    } catch (err) {
      // Refused or failed: what the store holds now is unknown here, so the next round reads it.
      this.remembered.delete(environmentId);
      throw err;
    }
  }

  private remember(record: WebhookSettingsRecord, now: number): void {
    const hit = this.remembered.get(record.environmentId);
    // An older version read by a round that started before a change does not replace the change.
    if (hit && hit.record.version > record.version && now - hit.readAt < this.freshMs) return;
    this.remembered.set(record.environmentId, { record, readAt: now });
  }
}
