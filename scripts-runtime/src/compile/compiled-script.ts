/**
 * A script ready to run: plain JavaScript (an ES module) and the source map back to what the
 * customer wrote. Stored with each uploaded version so that runs never transpile again.
 */
export interface CompiledScript {
  /** The customer's file name, e.g. "calendar-renewal.ts"; stack frames are reported against it. */
  filename: string;
  code: string;
  /** Version 3 source map (JSON) from `code` to the uploaded source. */
  sourceMap: string;
  /** sha256 of the uploaded source, hex. */
  sourceHash: string;
}

/** Why a script was refused, with the place in the uploaded file (1-based line and column). */
export interface ScriptProblem {
  message: string;
  file: string;
  line: number;
  column: number;
}

/**
 * The imports a script may use: `nango`, a virtual module with the script-side helpers, and `zod`
 * (the version Nango's CLI pins, for zero-yaml models and action schemas).
 */
export const ALLOWED_IMPORTS: readonly string[] = ["nango", "zod"];

/** Largest source accepted, in bytes. */
export const MAX_SOURCE_BYTES = 1024 * 1024;
