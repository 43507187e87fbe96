import type { WebhookSettingsRecord } from "./records.ts";

/** The environment's webhook settings: endpoints and signing secrets. */
export interface WebhookSettingsStore {
  /** The settings of `environmentId`, or null when none were saved yet. */
  getSettings(environmentId: string): Promise<WebhookSettingsRecord | null>;
  /**
   * Replaces the environment's settings with `record`, atomically and only if nobody else saved
   * in between: the write happens when the stored version is `record.version - 1` (or, for
   * `record.version === 1`, when nothing is stored yet). Returns false, writing nothing, otherwise.
   */
  saveSettings(record: WebhookSettingsRecord): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * Everything the webhook service stores. Only settings for now; the delivery queue (messages,
 * attempts) joins this as another interface backed by the same SQLite file or MongoDB database.
 */
export type WebhookServiceStore = WebhookSettingsStore;
