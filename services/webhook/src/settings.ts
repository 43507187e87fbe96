import type { Clock, Encryptor } from "@junction/platform";
import { errors } from "./errors.ts";
import { previousSecretInGrace, sealSigningSecret, signingSecretContext } from "./signing-secrets.ts";
import { generateSigningSecret } from "./signing.ts";
import type { WebhookSettingsRecord } from "./store/records.ts";
import type { WebhookSettingsStore } from "./store/store.ts";

/** How often a change is re-applied when other writers keep saving in between. */
const SAVE_ATTEMPTS = 5;

/** The fields of the settings a change may set; version and times are kept by `changeSettings`. */
export type SettingsChange = Pick<
  WebhookSettingsRecord,
  | "endpoints"
  | "signingSecretEnc"
  | "signingSecretPrefix"
  | "previousSigningSecretEnc"
  | "previousSecretValidUntil"
  | "signingSecretShown"
>;

/**
 * The environment's settings, created with a fresh signing secret the first time they are needed,
 * so that every environment has one. Race-safe: when two callers create at once, one record wins
 * and both return it.
 */
export async function ensureSettings(
  store: WebhookSettingsStore,
  encryptor: Encryptor,
  environmentId: string,
  now: number,
): Promise<WebhookSettingsRecord> {
  for (let attempt = 0; attempt < SAVE_ATTEMPTS; attempt++) {
    const found = await store.getSettings(environmentId);
    if (found) return found;
    const created: WebhookSettingsRecord = {
      environmentId,
      version: 1,
      endpoints: [],
      ...sealSigningSecret(encryptor, environmentId, generateSigningSecret()),
      previousSigningSecretEnc: null,
      previousSecretValidUntil: null,
      signingSecretShown: false,
      createdAt: now,
      updatedAt: now,
    };
    if (await store.saveSettings(created)) return created;
  }
  throw errors.settingsContention();
}

/**
 * Applies `change` to the environment's current settings and saves the result as the next
 * version. When another writer saved in between, reads again and re-applies `change`, so that
 * an endpoint update racing a rotation loses neither. `change` may run more than once.
 */
export async function changeSettings(
  store: WebhookSettingsStore,
  encryptor: Encryptor,
  clock: Clock,
  environmentId: string,
  change: (current: WebhookSettingsRecord, now: number) => Partial<SettingsChange>,
): Promise<WebhookSettingsRecord> {
  for (let attempt = 0; attempt < SAVE_ATTEMPTS; attempt++) {
    const now = clock.now();
    const current = await ensureSettings(store, encryptor, environmentId, now);
    const next = tidy(
      encryptor,
      { ...current, ...change(current, now), version: current.version + 1, updatedAt: now },
      now,
    );
    if (await store.saveSettings(next)) return next;
  }
  throw errors.settingsContention();
}

/** Drops a previous secret whose grace has ended and re-encrypts secrets under a rotated-out key. */
function tidy(encryptor: Encryptor, record: WebhookSettingsRecord, now: number): WebhookSettingsRecord {
  const out = { ...record };
  if (!previousSecretInGrace(out, now)) {
    out.previousSigningSecretEnc = null;
    out.previousSecretValidUntil = null;
  }
  const context = signingSecretContext(out.environmentId);
  if (encryptor.isStale(out.signingSecretEnc)) out.signingSecretEnc = encryptor.reseal(out.signingSecretEnc, context);
  if (out.previousSigningSecretEnc !== null && encryptor.isStale(out.previousSigningSecretEnc)) {
    out.previousSigningSecretEnc = encryptor.reseal(out.previousSigningSecretEnc, context);
  }
  return out;
}

/**
 * The plaintext secrets to sign with at `now`: the current one first, then the previous one while
 * its grace period lasts. Creates the environment's settings (and so its secret) if needed. Used by
 * the delivery worker with `signatureHeaders`.
 */
export async function currentSigningSecrets(
  store: WebhookSettingsStore,
  encryptor: Encryptor,
  environmentId: string,
  now: number,
): Promise<string[]> {
  const record = await ensureSettings(store, encryptor, environmentId, now);
  const context = signingSecretContext(environmentId);
  const secrets = [encryptor.decrypt(record.signingSecretEnc, context)];
  if (previousSecretInGrace(record, now)) {
    secrets.push(encryptor.decrypt(record.previousSigningSecretEnc as string, context));
  }
  return secrets;
}
