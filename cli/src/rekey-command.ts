import { join } from "node:path";
import { ChannelTokens, openChannelStore, resealChannelTokens } from "@junction/channel-service";
import { openConnectionStore, rekeyConnectionSecrets } from "@junction/connection-service";
import {
  ConfigError,
  DecryptionError,
  encryptorFromConfig,
  type Encryptor,
  loadCommonConfig,
  openDatabase,
  systemClock,
} from "@junction/platform";
import { changeSettings, openWebhookStore, type WebhookSettingsStore } from "@junction/webhook-service";
import { terminal } from "./commands/command-kit.ts";

type Env = Record<string, string | undefined>;

export const REKEY_USAGE = `usage:
  junction rekey [--distributed] [--batch <rows>]
Re-encrypts every stored secret under the current key (the first of JUNCTION_ENCRYPTION_KEYS, or
JUNCTION_ENCRYPTION_KEY), bound to its row. Safe to interrupt (Ctrl-C) and to run again, also while
Junction runs. --distributed: the per-service stores (connection.sqlite, webhook.sqlite, channel.sqlite, or MongoDB)
instead of the embedded default's junction.sqlite.`;

/**
 * `junction rekey`: rewrites client secrets, connection credentials, webhook signing secrets and
 * channel tokens under the current key. Exit code 0 when every secret is current, 1 when some row could not
 * be read (named, never its value), 2 for a usage error, 130 when interrupted (run it again).
 */
export async function runRekeyCommand(
  args: string[],
  env: Env = process.env,
  io = terminal,
  shouldStop: () => boolean = () => false,
): Promise<number> {
  const distributed = args.includes("--distributed");
  const batchAt = args.indexOf("--batch");
  const batchSize = batchAt >= 0 ? Number(args[batchAt + 1]) : 200;
  const known = new Set(["--distributed", "--batch"]);
  if (
    !Number.isInteger(batchSize) ||
    batchSize < 1 ||
    args.some((a, i) => !known.has(a) && (batchAt < 0 || i !== batchAt + 1))
  ) {
    io.err(REKEY_USAGE);
    return 2;
  }
  let common: ReturnType<typeof loadCommonConfig>;
  let encryptor: Encryptor;
  try {
    common = loadCommonConfig(env);
    encryptor = encryptorFromConfig(common, { embedded: !distributed });
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    io.err(`junction: ${err.message}`);
    return 78;
  }
  const shared =
    !distributed && common.store === "sqlite" ? openDatabase(join(common.dataDir, "junction.sqlite")) : undefined;
  const connections = await openConnectionStore(common, shared);
  const webhooks = await openWebhookStore(common, shared);
  const channels = await openChannelStore(common, shared);
  try {
    const counts = await rekeyConnectionSecrets(connections.secrets, encryptor, { batchSize, shouldStop });
    let signing = 0;
    let channelTokens = 0;
    if (!counts.interrupted) {
      const tokens = await resealChannelTokens(channels, new ChannelTokens(encryptor), { batchSize, shouldStop });
      channelTokens = tokens.rewritten;
      counts.unreadable.push(...tokens.unreadable.map((name) => `the token of ${name}`));
      counts.interrupted = tokens.interrupted;
    }
    if (!counts.interrupted) {
      for (const environmentId of await environmentIds(connections)) {
        try {
          if (await rekeySigningSecrets(webhooks, encryptor, environmentId)) signing++;
        } catch (err) {
          if (!(err instanceof DecryptionError)) throw err;
          counts.unreadable.push(`the webhook signing secrets of environment ${environmentId}`);
        }
      }
    }
    io.out(
      `rekey (key ${encryptor.currentKeyId}): ${counts.rewritten} rewritten, ${counts.current} already current, ` +
        `${counts.raced} changed meanwhile (written under the current key), ${signing} webhook signing secret record(s) rewritten, ${channelTokens} channel token(s) rewritten`,
    );
    for (const name of counts.unreadable) io.err(`junction: cannot decrypt the secret of ${name}`);
    if (counts.interrupted) {
      io.err("junction: interrupted; run junction rekey again to go on");
      return 130;
    }
    return counts.unreadable.length > 0 ? 1 : 0;
  } finally {
    await connections.close();
    await webhooks.close();
    await channels.close();
    shared?.close();
  }
}

async function environmentIds(store: Awaited<ReturnType<typeof openConnectionStore>>): Promise<string[]> {
  const none = new Error("no environment yet");
  try {
    return [
      (
        await store.getOrCreateEnvironment(() => {
          throw none;
        })
      ).id,
    ];
  } catch (err) {
    if (err === none) return [];
    throw err;
  }
}

/** Rewrites an environment's webhook settings when a signing secret is stale (the save re-seals it). */
async function rekeySigningSecrets(
  store: WebhookSettingsStore,
  encryptor: Encryptor,
  environmentId: string,
): Promise<boolean> {
  const found = await store.getSettings(environmentId);
  if (!found) return false;
  const stale = [found.signingSecretEnc, found.previousSigningSecretEnc].some(
    (s) => s !== null && encryptor.isStale(s),
  );
  if (!stale) return false;
  await changeSettings(store, encryptor, systemClock, environmentId, () => ({}));
  return true;
}
