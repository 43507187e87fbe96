import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { ConfigError } from "@junction/platform";

/** The example env file of the distributed topology, at the repository's root. */
export const ENV_EXAMPLE = join(import.meta.dir, "..", "..", "..", ".env.distributed.example");

/** The env file `junction up` reads: `{data dir}/distributed.env`. */
export const envFilePath = (dataDir: string): string => join(dataDir, "distributed.env");

/** Reads a dotenv-style file: `NAME=value` lines, `#` comments, optional quotes around a value. */
export function parseEnvFile(text: string, where: string): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [i, raw] of text.split("\n").entries()) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    const m = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/.exec(line);
    if (!m) throw new ConfigError(`${where}:${i + 1}: expected NAME=value, got "${line}"`);
    let value = (m[2] as string).trim();
    const quoted = /^(["'])(.*)\1$/.exec(value);
    if (quoted) value = quoted[2] as string;
    else value = value.replace(/\s+#.*$/, "");
    values[m[1] as string] = value;
  }
  return values;
}

/**
 * The env file at `path`, created on first use from the example with a fresh encryption key (mode 0600:
 * it holds secrets). Returns its values and whether it was just written.
 */
export function loadOrCreateEnvFile(path: string): { values: Record<string, string>; created: boolean } {
  let created = false;
  if (!existsSync(path)) {
    const example = readFileSync(ENV_EXAMPLE, "utf8");
    const key = randomBytes(32).toString("base64");
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, example.replace(/^JUNCTION_ENCRYPTION_KEY=.*$/m, `JUNCTION_ENCRYPTION_KEY=${key}`), {
      mode: 0o600,
    });
    created = true;
  }
  return { values: parseEnvFile(readFileSync(path, "utf8"), path), created };
}
