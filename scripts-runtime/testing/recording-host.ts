import type { JsonValue, LogEntry } from "../src/runtime/run-types.ts";
import type { ProxyConfiguration, ProxyResponse, ScriptHost } from "../src/runtime/script-host.ts";

/** One script API call as the host received it. */
export interface HostCall {
  method: string;
  args: unknown[];
}

/**
 * A ScriptHost for tests: records every call, answers proxy calls from `routes` (endpoint →
 * response, default 200 `{}`), and keeps metadata in memory the way the connection service does
 * (set replaces, update merges).
 */
export class RecordingHost implements ScriptHost {
  readonly calls: HostCall[] = [];
  readonly streamed: LogEntry[] = [];
  metadata: { [key: string]: JsonValue } = {};
  routes = new Map<string, ProxyResponse | (() => Promise<ProxyResponse>)>();
  webhookUrl: string | null = "https://junction.example.test/webhook/env_1/google-calendar";

  async proxy(config: ProxyConfiguration): Promise<ProxyResponse> {
    this.calls.push({ method: "proxy", args: [config] });
    const route = this.routes.get(config.endpoint);
    if (typeof route === "function") return route();
    return route ?? { status: 200, headers: { "content-type": "application/json" }, data: {} };
  }

  async getConnection(providerConfigKey: string | null, connectionId: string | null): Promise<JsonValue> {
    this.calls.push({ method: "getConnection", args: [providerConfigKey, connectionId] });
    return { connection_id: "conn-1", provider_config_key: "google-calendar", metadata: this.metadata };
  }

  async getMetadata(): Promise<{ [key: string]: JsonValue }> {
    this.calls.push({ method: "getMetadata", args: [] });
    return this.metadata;
  }

  async setMetadata(metadata: { [key: string]: JsonValue }): Promise<void> {
    this.calls.push({ method: "setMetadata", args: [metadata] });
    this.metadata = metadata;
  }

  async updateMetadata(metadata: { [key: string]: JsonValue }): Promise<void> {
    this.calls.push({ method: "updateMetadata", args: [metadata] });
    this.metadata = { ...this.metadata, ...metadata };
  }

  async getWebhookURL(): Promise<string | null> {
    this.calls.push({ method: "getWebhookURL", args: [] });
    return this.webhookUrl;
  }

  onLog(entry: LogEntry): void {
    this.streamed.push(entry);
  }
}

/** A sync script whose exec body is `body` (inside an async function taking `nango` and `input`). */
export const syncScript = (body: string) =>
  `export default createSync({\n  frequency: "1d",\n  exec: async (nango, input) => {\n${body}\n  },\n});\n`;
