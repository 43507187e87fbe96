import { waitFor } from "./wait-for.ts";

/** One span as an OTLP/HTTP JSON export carries it. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  service: string;
  attributes: Record<string, unknown>;
}

/** A local OTLP/HTTP receiver (JSON): collects every span exported to POST /v1/traces. */
export interface OtlpReceiver {
  /** The base URL, for OTEL_EXPORTER_OTLP_ENDPOINT. */
  url: string;
  spans: ReceivedSpan[];
  /** Waits for a span matching `pick`. */
  span(what: string, pick: (s: ReceivedSpan) => boolean, timeoutMs?: number): Promise<ReceivedSpan>;
  stop(): Promise<void>;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
}

const otlpValue = (v: OtlpValue): unknown => v.stringValue ?? v.intValue ?? v.boolValue ?? v.doubleValue;

export function startOtlpReceiver(): OtlpReceiver {
  const spans: ReceivedSpan[] = [];
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      if (req.method !== "POST" || new URL(req.url).pathname !== "/v1/traces") {
        return new Response("not found", { status: 404 });
      }
      const body = (await req.json()) as {
        resourceSpans: {
          resource: { attributes: { key: string; value: OtlpValue }[] };
          scopeSpans: {
            spans: (Omit<ReceivedSpan, "attributes" | "service"> & {
              attributes: { key: string; value: OtlpValue }[];
            })[];
          }[];
        }[];
      };
      for (const rs of body.resourceSpans) {
        const service = String(otlpValue(rs.resource.attributes.find((a) => a.key === "service.name")?.value ?? {}));
        for (const ss of rs.scopeSpans) {
          for (const s of ss.spans) {
            const attributes = Object.fromEntries(s.attributes.map((a) => [a.key, otlpValue(a.value)]));
            spans.push({ ...s, service, attributes });
          }
        }
      }
      return Response.json({});
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    spans,
    span: (what, pick, timeoutMs = 10_000) => waitFor(what, () => spans.find(pick), timeoutMs, 20),
    stop: () => server.stop(true),
  };
}
