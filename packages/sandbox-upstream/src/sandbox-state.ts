import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";

/** What the sandbox upstream keeps in its data dir across restarts. */
export interface SandboxState {
  /** The secret of its OAuth client: connections refresh with it. */
  clientSecret?: string;
  /** The port it listened on: test credentials' URLs stay valid. */
  port?: number;
  /** Each fake's users, clients and issued tokens, by fake name. */
  fakes?: Record<string, unknown>;
}

/** The saved state, or an empty one when there is none or it cannot be read (a first start). */
export function readSandboxState(file: string): SandboxState {
  if (!existsSync(file)) return {};
  try {
    const parsed = JSON.parse(readFileSync(file, "utf8")) as SandboxState;
    return typeof parsed === "object" && parsed !== null ? parsed : {};
  } catch {
    return {};
  }
}

/** Saves the state atomically (a crash leaves the previous one), readable by its owner only. */
export function writeSandboxState(file: string, state: SandboxState): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(`${file}.tmp`, JSON.stringify(state), { mode: 0o600 });
  renameSync(`${file}.tmp`, file);
}
