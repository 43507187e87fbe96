import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { randomBytes } from "node:crypto";
import { z } from "zod";
import { ConfigError, loadConfig } from "./config.ts";
import { type EncryptionKey, Encryptor } from "./crypto.ts";

/** Settings every Junction process reads (prefix JUNCTION_); each service adds its own. */
export const commonConfigSchema = z.object({
  /** Where SQLite files and the embedded encryption key live. */
  dataDir: z.string().default(".data"),
  /** {base_url} of the spec: the public address of the gateway. */
  baseUrl: z.string().url().optional(),
  /** Base64 32-byte key for secrets at rest. Required outside the embedded default. */
  encryptionKey: z.string().optional(),
  /** Comma-separated older keys, still accepted for decryption after a rotation. */
  encryptionKeysPrevious: z.string().default(""),
  /**
   * Every key as `id:base64`, comma-separated, the current one first (instead of the two above):
   * the ids are written in front of each ciphertext, so a key can be retired after `junction rekey`.
   */
  encryptionKeys: z.string().optional(),
  /**
   * Whether values encrypted in the unbound format (enc:v1, bound to no row) still decrypt. Turn it off once
   * `junction rekey` has rewritten them: an old copy (a backup) then opens in no row.
   */
  encryptionAcceptUnbound: z
    .union([z.boolean(), z.enum(["true", "false"], { message: 'must be "true" or "false"' })])
    .transform((v) => v === true || v === "true")
    .default(true),
  /** NATS server for the distributed topology. */
  natsUrl: z.string().default("nats://127.0.0.1:4222"),
  /** Storage: a SQLite file per service, or MongoDB. */
  store: z.enum(["sqlite", "mongodb"]).default("sqlite"),
  mongodbUrl: z.string().optional(),
  mongodbDatabase: z.string().default("junction"),
  /** Each SQLite connection's page cache bound, MiB (private memory; reads beyond it go through a memory map). */
  sqliteCacheMb: z.coerce.number().int().min(1).max(4096).default(16),
});

export type CommonConfig = z.infer<typeof commonConfigSchema>;

export function loadCommonConfig(env: Record<string, string | undefined> = process.env): CommonConfig {
  const cfg = loadConfig(commonConfigSchema, { prefix: "JUNCTION_", env });
  cfg.dataDir = resolve(cfg.dataDir);
  if (cfg.store === "mongodb" && !cfg.mongodbUrl) {
    throw new ConfigError("JUNCTION_MONGODB_URL is required when JUNCTION_STORE=mongodb");
  }
  return cfg;
}

/**
 * The encryptor for secrets at rest. Outside the embedded default the key must be configured; the
 * embedded default generates one on first run and keeps it in the data dir (mode 0600).
 */
export function encryptorFromConfig(cfg: CommonConfig, options: { embedded: boolean }): Encryptor {
  const previous = cfg.encryptionKeysPrevious.split(",").map((s) => s.trim());
  if (cfg.encryptionKeys !== undefined) {
    if (cfg.encryptionKey || previous.some((p) => p !== "")) {
      throw new ConfigError(
        "set either JUNCTION_ENCRYPTION_KEYS or JUNCTION_ENCRYPTION_KEY (with JUNCTION_ENCRYPTION_KEYS_PREVIOUS), not both",
      );
    }
    return encryptorFromKeyList(cfg.encryptionKeys, cfg.encryptionAcceptUnbound);
  }
  const format = { acceptUnbound: cfg.encryptionAcceptUnbound };
  if (cfg.encryptionKey) {
    const primary = cfg.encryptionKey;
    // Name the variable at fault: the key's own message cannot know where the key came from.
    withVariable("JUNCTION_ENCRYPTION_KEY", () => Encryptor.fromBase64(primary, [], format));
    return withVariable("JUNCTION_ENCRYPTION_KEYS_PREVIOUS", () => Encryptor.fromBase64(primary, previous, format));
  }
  if (!options.embedded) {
    throw new ConfigError(
      "JUNCTION_ENCRYPTION_KEY is required outside the embedded default (generate one with: openssl rand -base64 32)",
    );
  }
  mkdirSync(cfg.dataDir, { recursive: true });
  const file = join(cfg.dataDir, "encryption.key");
  if (!existsSync(file)) {
    writeFileSync(file, `${randomBytes(32).toString("base64")}\n`, { mode: 0o600 });
    chmodSync(file, 0o600);
  }
  const generated = readFileSync(file, "utf8").trim();
  return withVariable("JUNCTION_ENCRYPTION_KEYS_PREVIOUS", () => Encryptor.fromBase64(generated, previous, format));
}

/** Builds the encryptor; a key that does not decode is a ConfigError naming `variable`. */
function withVariable(variable: string, build: () => Encryptor): Encryptor {
  try {
    return build();
  } catch (err) {
    throw new ConfigError(`${variable}: ${(err as Error).message}`);
  }
}

function encryptorFromKeyList(list: string, acceptUnbound: boolean): Encryptor {
  try {
    const keys = Encryptor.parseKeyList(list);
    if (keys.length > 0) return new Encryptor(keys[0] as EncryptionKey, keys.slice(1), { acceptUnbound });
  } catch (err) {
    throw new ConfigError(`JUNCTION_ENCRYPTION_KEYS: ${(err as Error).message}`);
  }
  throw new ConfigError("JUNCTION_ENCRYPTION_KEYS lists no key (id:base64,...)");
}
