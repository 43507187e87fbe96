import type { LogEntry } from "../runtime/run-types.ts";
import { cutToBytes } from "../sandbox/log-budget.ts";

/** Logs a store keeps per run by default; the runtime's own cap is usually far below. */
export const DEFAULT_STORED_LOG_BYTES = 1024 * 1024;

/**
 * The logs as stored: at most `maxBytes` of messages, the crossing line cut, then one marker line.
 * Keeps a run record bounded whatever the caller hands in.
 */
export function capLogs(logs: LogEntry[], maxBytes: number): { logs: LogEntry[]; truncated: boolean } {
  let used = 0;
  const kept: LogEntry[] = [];
  for (const entry of logs) {
    const bytes = Buffer.byteLength(entry.message);
    if (used + bytes <= maxBytes) {
      used += bytes;
      kept.push(entry);
      continue;
    }
    const room = maxBytes - used;
    if (room > 0) kept.push({ ...entry, message: cutToBytes(entry.message, room) });
    kept.push({ level: "warn", message: `[logs truncated: more than ${maxBytes} bytes were logged]`, at: entry.at });
    return { logs: kept, truncated: true };
  }
  return { logs: kept, truncated: false };
}
