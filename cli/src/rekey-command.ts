import { join } from "node:path";
import { ChannelTokens, openChannelStore, resealChannelTokens } from "@junction/channel-service";
import { openConnectionStore, type RekeyCounts, rekeyConnectionSecrets } from "@junction/connection-service";
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
  const options = rekeyOptions(args);
  if (options === null) {
    io.err(REKEY_USAGE);
    return 2;
  }
  const { distributed, batchSize } = options;
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
  const stores: RekeyStores = {
    connections: await openConnectionStore(common, shared),
    webhooks: await openWebhookStore(common, shared),
    channels: await openChannelStore(common, shared),
  };
  try {
    return report(io, encryptor, await rekeyAll(stores, encryptor, { batchSize, shouldStop }));
  } finally {
    await stores.connections.close();
    await stores.webhooks.close();
    await stores.channels.close();
    shared?.close();
  }
}

/** `--distributed` and `--batch <rows>`; null for anything else or a batch that is no positive whole number. */
function rekeyOptions(args: string[]): { distributed: boolean; batchSize: number } | null {
  const distributed = args.includes("--distributed");
  const batchAt = args.indexOf("--batch");
  const batchSize = batchAt >= 0 ? Number(args[batchAt + 1]) : 200;
  const known = new Set(["--distributed", "--batch"]);
  if (
    !Number.isInteger(batchSize) ||
    batchSize < 1 ||
    args.some((a, i) => !known.has(a) && (batchAt < 0 || i !== batchAt + 1))
  ) {
    return null;
  }
  return { distributed, batchSize };
}

interface RekeyStores {
  connections: Awaited<ReturnType<typeof openConnectionStore>>;
  webhooks: Awaited<ReturnType<typeof openWebhookStore>>;
  channels: Awaited<ReturnType<typeof openChannelStore>>;
}

type RekeyResult = RekeyCounts & { signing: number; channelTokens: number };

/** Connection secrets, then channel tokens, then webhook signing secrets, each step only if not interrupted. */
async function rekeyAll(
  stores: RekeyStores,
  encryptor: Encryptor,
  options: { batchSize: number; shouldStop: () => boolean },
): Promise<RekeyResult> {
  const counts = await rekeyConnectionSecrets(stores.connections.secrets, encryptor, options);
  let signing = 0;
  let channelTokens = 0;
  if (!counts.interrupted) {
    const tokens = await resealChannelTokens(stores.channels, new ChannelTokens(encryptor), options);
    channelTokens = tokens.rewritten;
    counts.unreadable.push(...tokens.unreadable.map((name) => `the token of ${name}`));
    counts.interrupted = tokens.interrupted;
  }
  if (!counts.interrupted) {
    for (const environmentId of await environmentIds(stores.connections)) {
      try {
        if (await rekeySigningSecrets(stores.webhooks, encryptor, environmentId)) signing++;
      } catch (err) {
        if (!(err instanceof DecryptionError)) throw err;
        counts.unreadable.push(`the webhook signing secrets of environment ${environmentId}`);
      }
    }
  }
  return { ...counts, signing, channelTokens };
}

/** Prints what was rewritten and what could not be read; the exit code. */
function report(io: typeof terminal, encryptor: Encryptor, result: RekeyResult): number {
  io.out(
    `rekey (key ${encryptor.currentKeyId}): ${result.rewritten} rewritten, ${result.current} already current, ` +
      `${result.raced} changed meanwhile (written under the current key), ${result.signing} webhook signing secret record(s) rewritten, ${result.channelTokens} channel token(s) rewritten`,
  );
  for (const name of result.unreadable) io.err(`junction: cannot decrypt the secret of ${name}`);
  if (result.interrupted) {
    io.err("junction: interrupted; run junction rekey again to go on");
    return 130;
  }
  return result.unreadable.length > 0 ? 1 : 0;
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
