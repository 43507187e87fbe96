import { sha256Hex } from "@junction/platform";

/**
 * connection_config.emailAddressHash: SHA-256 (hex) of "junction:email:v1:" + the email trimmed and
 * lower-cased. The namespace keeps the hash from equalling a bare SHA-256 of the address found elsewhere.
 */
export function emailAddressHash(email: string): string {
  return sha256Hex(`junction:email:v1:${email.trim().toLowerCase()}`);
}
