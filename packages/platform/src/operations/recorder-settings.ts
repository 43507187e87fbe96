import { z } from "zod";
import type { Clock } from "../clock.ts";
import { flagSetting, loadConfig } from "../config.ts";
import type { MetricsRegistry } from "../metrics.ts";
import { OperationRecorder } from "./operation-recorder.ts";

/** How each process records its operations, from JUNCTION_LOGS_* (the log's retention is the logs service's). */
export const recorderSettingsSchema = z.object({
  /** Record operations at all (off: the log stays empty; for measuring its cost). */
  record: flagSetting.default(true),
  /** Operations held in memory waiting for the store; past it they are dropped and counted. */
  buffer: z.coerce.number().int().min(1).max(1_000_000).default(10_000),
  /**
   * Successful proxy calls (answers under 400) recorded one by one too. Off by default: a row per call costs the
   * proxy ~20 µs of CPU per request (docs/logs.md, "What it costs"); failures and errors are always recorded.
   */
  proxySuccesses: flagSetting.default(false),
  /**
   * Successful notification receipts (recorded, duplicate, handshake) recorded one by one too. Off by default: they
   * are per-minute totals per integration and outcome, since a row per receipt cost the notification rate more than
   * the log's bound (docs/logs.md, "What it costs"); refused receipts and errors are always recorded.
   */
  notificationReceipts: flagSetting.default(false),
  /** Integration ids whose bodies are recorded, comma-separated; no body of any other is kept. */
  bodies: z
    .string()
    .default("")
    .transform((v) =>
      v
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean),
    ),
});

export type RecorderSettings = z.infer<typeof recorderSettingsSchema>;

export function loadRecorderSettings(env: Record<string, string | undefined> = process.env): RecorderSettings {
  return loadConfig(recorderSettingsSchema, { prefix: "JUNCTION_LOGS_", env });
}

/** The process's recorder, from its settings; `kept: false` when no process of the topology keeps the log. */
export function recorderFromEnv(
  env: Record<string, string | undefined>,
  clock: Clock,
  metrics?: MetricsRegistry,
  kept = true,
): OperationRecorder {
  const s = loadRecorderSettings(env);
  return new OperationRecorder({
    clock,
    enabled: s.record && kept,
    maxBuffered: s.buffer,
    proxySuccesses: s.proxySuccesses,
    notificationReceipts: s.notificationReceipts,
    bodies: new Set(s.bodies),
    ...(metrics ? { metrics } : {}),
  });
}
