/**
 * connection_config.emailAddressHash: SHA-256 (hex) of "junction:email:v1:" + the email trimmed and
 * lower-cased. The namespace keeps the hash from equalling a bare SHA-256 of the address found elsewhere.
 */
export function emailAddressHash(email: string): string {
  // Bun's SHA-256 rather than node:crypto's createHash: the same digest, a quarter of the time (it is
  // on the path of every rule-2 match).
  return Bun.SHA256.hash(`junction:email:v1:${email.trim().toLowerCase()}`, "hex");
}

/**
 * The emailAddressHash Nango writes (SHA-256 hex of "nango.emailAddressHash.v1:" + the email trimmed
 * and lower-cased). Read at match time only, so that connections imported from Nango keep matching;
 * Junction never writes it.
 */
export function nangoEmailAddressHash(email: string): string {
  return Bun.SHA256.hash(`nango.emailAddressHash.v1:${email.trim().toLowerCase()}`, "hex");
}
