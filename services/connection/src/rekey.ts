import { DecryptionError, type Encryptor } from "@junction/platform";
import { secretContexts } from "./secret-contexts.ts";
import type { SecretRewriteStore } from "./store/secret-rewrite-store.ts";

/** What one `junction rekey` pass did with the connection service's secrets. */
export interface RekeyCounts {
  /** Sealed again under the current key, bound to their row. */
  rewritten: number;
  /** Already under the current key in the current format: left alone. */
  current: number;
  /** Written by someone else between the read and the swap (sealed under the current key then): left alone. */
  raced: number;
  /** Rows whose secret does not open (another row's ciphertext, altered, or a removed key), named. */
  unreadable: string[];
  /** Whether the pass stopped early when asked to (run it again to go on). */
  interrupted: boolean;
}

export interface RekeyOptions {
  /** Rows read per scan. */
  batchSize?: number;
  /** Asked between rows: true stops the pass (each row already swapped stays swapped). */
  shouldStop?: () => boolean;
}

/**
 * Re-encrypts every client secret and connection credential that is not yet under the current key in
 * the bound format. Each row is one compare-and-set, so the pass can stop anywhere and run
 * again (rows already done are skipped), and a concurrent refresh is never overwritten.
 */
export async function rekeyConnectionSecrets(
  store: SecretRewriteStore,
  encryptor: Encryptor,
  options: RekeyOptions = {},
): Promise<RekeyCounts> {
  const batchSize = options.batchSize ?? 200;
  const stop = options.shouldStop ?? (() => false);
  const counts: RekeyCounts = { rewritten: 0, current: 0, raced: 0, unreadable: [], interrupted: false };
  const one = async (sealed: string, context: string, swap: (next: string) => Promise<boolean>, name: string) => {
    if (!encryptor.isStale(sealed)) {
      counts.current++;
      return;
    }
    let next: string;
    try {
      next = encryptor.reseal(sealed, context);
    } catch (err) {
      if (!(err instanceof DecryptionError)) throw err;
      counts.unreadable.push(name);
      return;
    }
    if (await swap(next)) counts.rewritten++;
    else counts.raced++;
  };

  for (const s of await store.scanClientSecrets()) {
    if (stop()) return { ...counts, interrupted: true };
    const context = secretContexts.integrationClientSecret(s.environmentId, s.uniqueKey);
    await one(
      s.clientSecretEnc,
      context,
      (next) => store.swapClientSecret(s.environmentId, s.uniqueKey, s.clientSecretEnc, next),
      `integration ${s.uniqueKey} (client secret)`,
    );
  }
  let cursor = "";
  for (;;) {
    const batch = await store.scanCredentials(cursor, batchSize);
    for (const row of batch) {
      if (stop()) return { ...counts, interrupted: true };
      await one(
        row.credentialsEnc,
        secretContexts.connectionCredentials(row),
        (next) => store.swapCredentials(row.id, row.credentialsEnc, next),
        `connection ${row.connectionId} of integration ${row.providerConfigKey}`,
      );
    }
    if (batch.length < batchSize) return counts;
    cursor = (batch[batch.length - 1] as { id: string }).id;
  }
}
