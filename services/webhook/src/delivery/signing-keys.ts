import type { Encryptor } from "@junction/platform";
import { previousSecretInGrace } from "../signing-secrets.ts";
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
    const out = [this.decrypt(record.signingSecretEnc)];
    if (previousSecretInGrace(record, now)) out.push(this.decrypt(record.previousSigningSecretEnc as string));
    return out;
  }

  private decrypt(envelope: string): string {
    let secret = this.plaintext.get(envelope);
    if (secret === undefined) {
      secret = this.encryptor.decrypt(envelope);
      if (this.plaintext.size >= MAX_REMEMBERED) this.plaintext.clear();
      this.plaintext.set(envelope, secret);
    }
    return secret;
  }
}
