import { timingSafeEqual } from "node:crypto";

const MAC_BYTES = 16;

/**
 * A record's cursor: its sequence number in its partition, signed with the partition's secret. Opaque
 * to callers; one forged, altered or taken from another connection, model or variant does not verify.
 */
export function encodeCursor(secret: Uint8Array, seq: number): string {
  return cursorSigner(secret)(seq);
}

/** Encodes many cursors of one partition: the keyed hasher is set up once (a page signs 1,000). */
export function cursorSigner(secret: Uint8Array): (seq: number) => string {
  const keyed = new Bun.CryptoHasher("sha256", secret);
  return (seq) => {
    const body = `v1.${seq.toString(36)}`;
    const tag = Buffer.from(keyed.copy().update(body).digest().subarray(0, MAC_BYTES)).toString("base64url");
    return Buffer.from(`${body}.${tag}`).toString("base64url");
  };
}

/** The sequence number of a cursor of this partition, or null when it is not one. */
export function decodeCursor(secret: Uint8Array | null, cursor: string): number | null {
  if (!secret || cursor.length > 200 || !/^[A-Za-z0-9_-]+$/.test(cursor)) return null;
  const text = Buffer.from(cursor, "base64url").toString("latin1");
  const match = /^(v1\.([0-9a-z]{1,11}))\.([A-Za-z0-9_-]+)$/.exec(text);
  if (!match) return null;
  const given = Buffer.from(match[3] as string, "base64url");
  const expected = mac(secret, match[1] as string);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  const seq = Number.parseInt(match[2] as string, 36);
  return Number.isSafeInteger(seq) ? seq : null;
}

function mac(secret: Uint8Array, body: string): Buffer {
  // Bun's hasher: node's createHmac costs several times more, once per record of every page.
  return Buffer.from(new Bun.CryptoHasher("sha256", secret).update(body).digest().subarray(0, MAC_BYTES));
}
