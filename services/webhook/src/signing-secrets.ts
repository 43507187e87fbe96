import { type Encryptor, secretContext } from "@junction/platform";
import type { WebhookSettingsRecord } from "./store/records.ts";

/** How many characters of a secret are kept in clear to recognise it: `whsec_` and four more. */
export const SECRET_PREFIX_LENGTH = 10;

/** The previous secret keeps signing this long after a rotation when the request names no period. */
export const DEFAULT_GRACE_MS = 24 * 60 * 60 * 1000;

/** The longest grace period a rotation may ask for. */
export const MAX_GRACE_MS = 30 * 24 * 60 * 60 * 1000;

/** The row a signing secret is bound to (its encryption's associated data): its environment. */
export function signingSecretContext(environmentId: string): string {
  return secretContext("webhook-signing-secret", environmentId);
}

/** The stored form of a signing secret: encrypted for its environment, plus the prefix shown to recognise it. */
export function sealSigningSecret(
  encryptor: Encryptor,
  environmentId: string,
  plaintext: string,
): Pick<WebhookSettingsRecord, "signingSecretEnc" | "signingSecretPrefix"> {
  return {
    signingSecretEnc: encryptor.encrypt(plaintext, signingSecretContext(environmentId)),
    signingSecretPrefix: plaintext.slice(0, SECRET_PREFIX_LENGTH),
  };
}

/** Whether the record's previous secret still signs at `now`. */
export function previousSecretInGrace(record: WebhookSettingsRecord, now: number): boolean {
  return (
    record.previousSigningSecretEnc !== null &&
    record.previousSecretValidUntil !== null &&
    now < record.previousSecretValidUntil
  );
}
