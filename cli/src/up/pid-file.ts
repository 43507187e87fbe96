import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** What `junction up` records of what it started: its own pid and each supervised process's. */
export interface PidRecord {
  supervisor: number;
  processes: Record<string, number>;
}

/** The pid file of `junction up`: `{data dir}/junction-up.pid`. */
export const pidFilePath = (dataDir: string): string => join(dataDir, "junction-up.pid");

export function readPidFile(path: string): PidRecord | null {
  if (!existsSync(path)) return null;
  try {
    const parsed = JSON.parse(readFileSync(path, "utf8")) as PidRecord;
    if (typeof parsed.supervisor !== "number" || typeof parsed.processes !== "object") return null;
    return parsed;
  } catch {
    return null;
  }
}

/** Writes the record whole (a rename), so `junction down` never reads half a file. */
export function writePidFile(path: string, record: PidRecord): void {
  writeFileSync(`${path}.tmp`, `${JSON.stringify(record)}\n`);
  renameSync(`${path}.tmp`, path);
}

export function removePidFile(path: string): void {
  rmSync(path, { force: true });
}

/**
 * Whether `pid` is a live process that `junction up` may have started: a Junction process or nats-server,
 * so that a pid reused by an unrelated program after a reboot is never signalled.
 */
export function isOurs(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8");
    if (cmdline === "") return false; // a zombie: exited, not yet reaped
    return /junction|nats-server/.test(cmdline);
  } catch {
    // No /proc (macOS): the pid is alive and was recorded by `junction up`.
    return true;
  }
}
