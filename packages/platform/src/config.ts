import { existsSync, readFileSync } from "node:fs";
import type { z } from "zod";

/**
 * Loads a service's config: the schema's defaults, then a JSON file (if `fileEnv` names one), then
 * environment variables named PREFIX_FIELD (camelCase fields become SCREAMING_SNAKE). Fails fast with
 * a message naming the variable when a value is missing or wrong.
 */
export function loadConfig<S extends z.ZodObject>(
  schema: S,
  options: { prefix: string; env?: Record<string, string | undefined>; file?: string },
): z.infer<S> {
  const env = options.env ?? process.env;
  const raw: Record<string, unknown> = {};
  if (options.file && existsSync(options.file)) {
    Object.assign(raw, JSON.parse(readFileSync(options.file, "utf8")));
  }
  for (const key of Object.keys(schema.shape)) {
    const name = envName(options.prefix, key);
    const value = env[name];
    if (value !== undefined && value !== "") raw[key] = value;
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => {
      const key = String(i.path[0] ?? "");
      return `${envName(options.prefix, key)}: ${i.message}`;
    });
    throw new ConfigError(`invalid configuration:\n  ${problems.join("\n  ")}`);
  }
  return parsed.data;
}

export function envName(prefix: string, key: string): string {
  return `${prefix}${key.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toUpperCase()}`;
}

export class ConfigError extends Error {
  override name = "ConfigError";
}
