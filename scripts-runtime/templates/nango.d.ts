// Types of the virtual module "nango" that customer scripts import (scripts-runtime/README.md, "The
// script API"). Types only: the module itself is defined inside the sandbox. Copy this file next to
// your scripts for editor completion; `import type { Nango } from "nango"` is erased on upload.

declare module "nango" {
  type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
  type Metadata = { [key: string]: JsonValue };
  type LogLevel = "debug" | "info" | "warn" | "error";

  /** Nango's ProxyConfiguration. */
  interface ProxyConfiguration {
    endpoint: string;
    method?: "GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "HEAD" | "OPTIONS";
    params?: Record<string, string | number | boolean | (string | number)[]>;
    data?: JsonValue;
    headers?: Record<string, string>;
    retries?: number;
    retryOn?: number[];
    baseUrlOverride?: string;
    decompress?: boolean;
    responseType?: "json" | "text";
    providerConfigKey?: string;
    connectionId?: string;
  }

  /** What the upstream answered (a status of 400 or more is thrown as a ScriptApiError instead). */
  interface ProxyResponse<T = unknown> {
    status: number;
    headers: Record<string, string>;
    data: T;
  }

  /** The `nango` object handed to `exec` and `onWebhook`. */
  interface Nango {
    readonly connectionId: string | null;
    readonly providerConfigKey: string | null;
    readonly environmentId: string | null;
    readonly scriptName: string | null;
    readonly activityLogId: string | null;
    readonly lastSyncDate: Date | null;
    proxy<T = unknown>(config: ProxyConfiguration): Promise<ProxyResponse<T>>;
    get<T = unknown>(config: ProxyConfiguration): Promise<ProxyResponse<T>>;
    post<T = unknown>(config: ProxyConfiguration): Promise<ProxyResponse<T>>;
    put<T = unknown>(config: ProxyConfiguration): Promise<ProxyResponse<T>>;
    patch<T = unknown>(config: ProxyConfiguration): Promise<ProxyResponse<T>>;
    delete<T = unknown>(config: ProxyConfiguration): Promise<ProxyResponse<T>>;
    getConnection(providerConfigKey?: string, connectionId?: string): Promise<JsonValue>;
    getMetadata<T extends Metadata = Metadata>(): Promise<T>;
    /** Replaces the connection's metadata. */
    setMetadata(metadata: Metadata): Promise<void>;
    /** Merges into the connection's metadata (top-level keys). */
    updateMetadata(metadata: Metadata): Promise<void>;
    /** The integration's webhook URL: the address of its notification channels. */
    getWebhookURL(): Promise<string | null>;
    /** Logs a line; a last argument `{ level }` sets its level (default info). */
    log(...args: unknown[]): void;
    uuid(): string;
  }

  /** Thrown by a failed script API call. */
  class ScriptApiError extends Error {
    status: number;
    body: JsonValue;
    code?: string;
    response: { status: number; data: JsonValue; headers: Record<string, string> };
  }

  interface SyncDeclaration {
    description?: string;
    version?: string;
    frequency: string;
    autoStart?: boolean;
    webhookSubscriptions?: string[];
    endpoint?: string;
    endpoints?: { method: string; path: string }[];
    exec: (nango: Nango) => Promise<unknown>;
    onWebhook?: (nango: Nango, payload: JsonValue) => Promise<unknown>;
  }

  interface OnEventDeclaration {
    description?: string;
    version?: string;
    event: "post-connection-creation" | "pre-connection-deletion";
    exec: (nango: Nango) => Promise<unknown>;
  }

  function createSync(declaration: SyncDeclaration): SyncDeclaration & { type: "sync" };
  function createOnEvent(declaration: OnEventDeclaration): OnEventDeclaration & { type: "on-event" };
}
