import { existsSync, readFileSync } from "node:fs";
import { z } from "zod";
import type { LogLevel } from "./logger.ts";

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

/**
 * A yes/no setting: "1", "true", "yes", "on" or "0", "false", "no", "off" (any case) from an environment
 * variable, or a boolean from the config file; unset is false.
 */
export const flagSetting = z
  .union([
    z.boolean(),
    z
      .string()
      .trim()
      .toLowerCase()
      .regex(/^(1|true|yes|on|0|false|no|off)$/, { message: 'must be "true" or "false"' })
      .transform((value) => /^(1|true|yes|on)$/.test(value)),
  ])
  .default(false);

const portSetting = z.object({ port: z.coerce.number().int().min(0).max(65_535) });

/**
 * The port a process listens on, from `<prefix>PORT` (`PORT` with no prefix, as hosting platforms set
 * it for the gateway; `JUNCTION_<SERVICE>_PORT` for a service), or `fallback` when unset.
 */
export function loadPort(env: Record<string, string | undefined>, prefix: string, fallback: number): number {
  return loadConfig(z.object({ port: portSetting.shape.port.default(fallback) }), { prefix, env }).port;
}

const logLevelSetting = z.object({
  logLevel: z
    .string()
    .trim()
    .toLowerCase()
    .pipe(z.enum(["debug", "info", "warn", "error"]))
    .default("info"),
});

/** The lowest level logged (JUNCTION_LOG_LEVEL: debug, info, warn or error; info when unset). */
export function loadLogLevel(env: Record<string, string | undefined> = process.env): LogLevel {
  return loadConfig(logLevelSetting, { prefix: "JUNCTION_", env }).logLevel;
}

export function envName(prefix: string, key: string): string {
  return `${prefix}${key.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toUpperCase()}`;
}

export class ConfigError extends Error {
  override name = "ConfigError";
}
