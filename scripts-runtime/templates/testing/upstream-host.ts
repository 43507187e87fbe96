import type { JsonValue, LogEntry, ProxyConfiguration, ProxyResponse, ScriptHost } from "../../src/index.ts";

/**
 * A ScriptHost for the template tests: proxy calls go straight to an upstream base URL (the fake
 * upstream) with a Bearer token, metadata lives in memory (set replaces, update merges, as the
 * connection service does). Junction's own host goes through the proxy instead; this one lets the
 * templates be checked against the upstream's real answers without the rest of Junction.
 */
export class UpstreamHost implements ScriptHost {
  metadata: { [key: string]: JsonValue } = {};
  /** Upstream calls made, as `METHOD /path`. */
  readonly requests: string[] = [];
  readonly logs: LogEntry[] = [];
  /** When set, updateMetadata and setMetadata fail with it. */
  failMetadataWrites: Error | null = null;

  constructor(
    private readonly baseUrl: string,
    private readonly accessToken: string,
    public webhookUrl: string | null,
  ) {}

  async proxy(config: ProxyConfiguration): Promise<ProxyResponse> {
    const url = new URL(config.endpoint, this.baseUrl);
    for (const [key, value] of Object.entries(config.params ?? {})) url.searchParams.set(key, String(value));
    const headers: Record<string, string> = { ...config.headers, authorization: `Bearer ${this.accessToken}` };
    let body: string | undefined;
    if (config.data !== undefined) {
      body = JSON.stringify(config.data);
      headers["content-type"] = "application/json";
    }
    this.requests.push(`${config.method} ${url.pathname}`);
    const res = await fetch(url, { method: config.method, headers, body });
    const text = await res.text();
    let data: JsonValue = text;
    try {
      data = text ? (JSON.parse(text) as JsonValue) : null;
    } catch {
      // Not JSON: the text is the data.
    }
    const out: Record<string, string> = {};
    res.headers.forEach((value, name) => {
      out[name] = value;
    });
    return { status: res.status, headers: out, data };
  }

  async getConnection(): Promise<JsonValue> {
    return { connection_id: "conn-template-test", provider_config_key: "google-calendar", metadata: this.metadata };
  }

  async getMetadata(): Promise<{ [key: string]: JsonValue }> {
    return this.metadata;
  }

  async setMetadata(metadata: { [key: string]: JsonValue }): Promise<void> {
    if (this.failMetadataWrites) throw this.failMetadataWrites;
    this.metadata = metadata;
  }

  async updateMetadata(metadata: { [key: string]: JsonValue }): Promise<void> {
    if (this.failMetadataWrites) throw this.failMetadataWrites;
    this.metadata = { ...this.metadata, ...metadata };
  }

  async getWebhookURL(): Promise<string | null> {
    return this.webhookUrl;
  }

  onLog(entry: LogEntry): void {
    this.logs.push(entry);
  }
}
