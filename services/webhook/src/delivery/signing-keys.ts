import type { Encryptor } from "@junction/platform";
import { previousSecretInGrace, signingSecretContext } from "../signing-secrets.ts";
import type { WebhookSettingsRecord } from "../store/records.ts";

/** Envelopes remembered at most; an environment has two at a time, so this only bounds a leak. */
const MAX_REMEMBERED = 64;

/**
 * The plaintext signing secrets of settings records, decrypted once per envelope: a delivery round
 * reads the settings anyway, and decrypting on every message would cost more than signing.
 */
export class SigningKeys {
  private readonly plaintext = new Map<string, string>();

  constructor(private readonly encryptor: Encryptor) {}

  /** The secrets to sign with at `now`: the current one, then the previous one during its grace. */
  secrets(record: WebhookSettingsRecord, now: number): string[] {
    const context = signingSecretContext(record.environmentId);
    const out = [this.decrypt(record.signingSecretEnc, context)];
    if (previousSecretInGrace(record, now)) out.push(this.decrypt(record.previousSigningSecretEnc as string, context));
    return out;
  }

  private decrypt(envelope: string, context: string): string {
    // Remembered per row too: an envelope opened for one environment must not open from the cache for another.
    const key = `${context}\n${envelope}`;
    let secret = this.plaintext.get(key);
    if (secret === undefined) {
      secret = this.encryptor.decrypt(envelope, context);
      if (this.plaintext.size >= MAX_REMEMBERED) this.plaintext.clear();
      this.plaintext.set(key, secret);
    }
    return secret;
  }
}
