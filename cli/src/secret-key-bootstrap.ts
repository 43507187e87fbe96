import type { Client } from "@connectrpc/connect";
import type { ConnectionService } from "@junction/contracts/connection/v1/connection_service_pb";
import { exponentialDelay } from "@junction/platform";

/**
 * Makes sure a secret key exists. JUNCTION_SECRET_KEY, when set, is registered (idempotent). Otherwise,
 * on first start with no active key, one is generated and returned so the caller can print it once to
 * the terminal; it never goes to the structured log.
 */
export async function bootstrapSecretKey(
  connections: Client<typeof ConnectionService>,
  configured: string | undefined,
  options: { waitMs?: number } = {},
): Promise<string | undefined> {
  // In the distributed topology the connection service may still be starting: wait for it.
  const deadline = Date.now() + (options.waitMs ?? 0);
  for (let attempt = 0; ; attempt++) {
    const delay = exponentialDelay(attempt, 50, 1000);
    try {
      await connections.getEnvironment({});
      break;
    } catch (err) {
      if (Date.now() + delay > deadline) throw err;
      await Bun.sleep(delay);
    }
  }
  if (configured) {
    await connections.createSecretKey({ name: "JUNCTION_SECRET_KEY", plaintext: configured });
    return undefined;
  }
  const { keys } = await connections.listSecretKeys({});
  if (keys.some((k) => k.revokedAtMs === 0n)) return undefined;
  const res = await connections.createSecretKey({ name: "default" });
  return res.plaintext;
}

/** The one-time notice for a generated key, written to stderr (the terminal), not the JSON log. */
export function printGeneratedKey(key: string, out: (s: string) => void = (s) => process.stderr.write(s)): void {
  out(
    [
      "",
      "  Junction generated a secret key on this first start. It is shown only this once:",
      "",
      `    ${key}`,
      "",
      "  Send it as 'Authorization: Bearer <key>'. Keep it somewhere safe; set JUNCTION_SECRET_KEY to pin one.",
      "",
    ].join("\n"),
  );
}

/**
 * The notice of a later start that uses the keys kept from an earlier one: they are stored only as hashes, so
 * the notice says where they are and how to add one when the printed key is lost, never a key.
 */
export function printKeptKeyNotice(
  databaseFile: string,
  out: (s: string) => void = (s) => process.stderr.write(s),
): void {
  out(
    [
      "",
      `  Junction uses the secret keys kept in ${databaseFile} (stored as hashes: the one printed on the first`,
      "  start cannot be shown again). Lost it? Start with JUNCTION_SECRET_KEY=<a key of your own, 16+ characters>",
      "  to add a key, then revoke the old one on the dashboard's Secret keys page or with 'junction secret-keys'.",
      "",
    ].join("\n"),
  );
}
