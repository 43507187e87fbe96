import type { JsonValue, LogEntry } from "./run-types.ts";

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "HEAD" | "OPTIONS";

/** Nango's ProxyConfiguration as a script passes it to `nango.proxy` / `get` / `post` / ... */
export interface ProxyConfiguration {
  endpoint: string;
  method: HttpMethod;
  params?: Record<string, string | number | boolean | (string | number)[]>;
  data?: JsonValue;
  headers?: Record<string, string>;
  retries?: number;
  retryOn?: number[];
  baseUrlOverride?: string;
  decompress?: boolean;
  responseType?: "json" | "text";
  /** Asked for by ported Nango scripts; the host decides whether another connection may be used. */
  providerConfigKey?: string;
  connectionId?: string;
}

/** What the upstream answered, axios-like as Nango scripts expect (`res.data`, `res.status`). */
export interface ProxyResponse {
  status: number;
  headers: Record<string, string>;
  data: JsonValue;
}

/**
 * The script API as the caller of a run provides it, typically backed by the proxy, connection
 * and metadata services, scoped to the run's connection. All functions are async and take and
 * return JSON only. To fail a call with a status and body the script can read, throw a
 * `ScriptHostError`; any other error reaches the script as a 500 with a generic message, so that
 * nothing internal leaks into customer logs.
 *
 * `proxy` resolves with the upstream response whatever its status: the runtime turns a status of
 * 400 or more into a `ScriptApiError` thrown in the script (axios' default), with `status`,
 * `body` and `response`.
 */
export interface ScriptHost {
  proxy(config: ProxyConfiguration): Promise<ProxyResponse>;
  /** The connection (Nango's shape); the arguments are overrides the script may pass, else null. */
  getConnection(providerConfigKey: string | null, connectionId: string | null): Promise<JsonValue>;
  getMetadata(): Promise<{ [key: string]: JsonValue }>;
  /** Replaces the metadata. */
  setMetadata(metadata: { [key: string]: JsonValue }): Promise<void>;
  /** Merges into the metadata. */
  updateMetadata(metadata: { [key: string]: JsonValue }): Promise<void>;
  /** The integration's webhook URL (spec: the address of calendar notification channels). */
  getWebhookURL(): Promise<string | null>;
  /** Each log line as it arrives, for live streaming; the run result holds them all anyway. */
  onLog?(entry: LogEntry): void;
  /** The records, checkpoints, pagination and variables of a run of the scripts service; absent elsewhere. */
  records?: RecordsHost;
}

/** Nango's merging strategies (setMergingStrategy). */
export type MergingStrategy = "override" | "ignore_if_modified_after";

/**
 * The record API of a run (Nango's names and semantics): writes of one call are all or nothing, and a
 * refused call throws a `ScriptHostError` whose message names the record and field.
 */
export interface RecordsHost {
  batchSave(records: unknown[], model: string): Promise<void>;
  /** Deep-merges each record into the stored one (arrays replaced); unknown ids are left out. */
  batchUpdate(records: unknown[], model: string): Promise<void>;
  batchDelete(records: unknown[], model: string): Promise<void>;
  /** `[id, record]` pairs of the ids found. */
  getRecordsByIds(ids: (string | number)[], model: string): Promise<[string, JsonValue][]>;
  trackDeletesStart(model: string): Promise<void>;
  trackDeletesEnd(model: string): Promise<{ deletedKeys: string[] }>;
  deleteRecordsFromPreviousExecutions(model: string): Promise<{ deletedKeys: string[] }>;
  setMergingStrategy(strategy: MergingStrategy, model: string): Promise<void>;
  getCheckpoint(): Promise<Record<string, string | number | boolean> | null>;
  saveCheckpoint(checkpoint: Record<string, string | number | boolean>): Promise<void>;
  clearCheckpoint(): Promise<void>;
  /** The environment's variables, `{name, value}` each. */
  getEnvironmentVariables(): Promise<{ name: string; value: string }[]>;
  /** The provider's pagination settings (Nango's `proxy.paginate`), null when it has none. */
  getPagination(): Promise<JsonValue>;
}

/** A script API call that failed in a way the script may handle: an HTTP-like status and a body. */
export class ScriptHostError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly body: JsonValue = null,
    readonly code?: string,
  ) {
    super(message);
    this.name = "ScriptHostError";
  }
}

/** A host for runs that must not reach anything, e.g. reading a declaration. */
export const refusingHost: ScriptHost = {
  proxy: refuse,
  getConnection: refuse,
  getMetadata: refuse,
  setMetadata: refuse,
  updateMetadata: refuse,
  getWebhookURL: refuse,
};

async function refuse(): Promise<never> {
  throw new ScriptHostError("the script API is not available here", 503, null, "unavailable");
}
