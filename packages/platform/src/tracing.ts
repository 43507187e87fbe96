/**
 * OpenTelemetry traces, off unless OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)
 * is set: spans exported over OTLP/HTTP (JSON), W3C `traceparent` carried over Connect headers and bus
 * message headers, the active span kept in an AsyncLocalStorage. Not exported from the package index:
 * a process loads this module (and the SDK) only when tracing is on (import "@junction/platform/tracing").
 * Nothing is registered globally: the process hands its `Tracing` to what it builds, as it does metrics.
 */
import type { Interceptor } from "@connectrpc/connect";
import {
  type Attributes,
  type Context,
  defaultTextMapGetter,
  defaultTextMapSetter,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Tracer,
} from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BatchSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import { type SpanNote, type Tracing, tracesEndpoint } from "./tracing-types.ts";

export { type Tracing, tracesEndpoint } from "./tracing-types.ts";

/**
 * Starts tracing for a process when the standard variables ask for it: `OTEL_SERVICE_NAME` names it
 * (default `junction-<name>`). Undefined when off.
 */
export function startTracing(env: Record<string, string | undefined>, processName: string): Tracing | undefined {
  const url = tracesEndpoint(env);
  if (!url) return undefined;
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ "service.name": env.OTEL_SERVICE_NAME?.trim() || `junction-${processName}` }),
    spanProcessors: [
      new BatchSpanProcessor({
        exporter: new OTLPTraceExporter({ url }),
        scheduledDelayMillis: Number(env.OTEL_BSP_SCHEDULE_DELAY) || 1000,
      }),
    ],
  });
  const contexts = new AsyncLocalStorageContextManager().enable();
  return new OtelTracing(provider.getTracer("junction"), contexts, provider);
}

class OtelTracing implements Tracing {
  private readonly propagator = new W3CTraceContextPropagator();

  constructor(
    private readonly tracer: Tracer,
    private readonly contexts: AsyncLocalStorageContextManager,
    private readonly provider: TracerProvider,
  ) {}

  async span<T>(
    name: string,
    attributes: Attributes,
    fn: (span: SpanNote) => Promise<T>,
    options: { parent?: Record<string, string>; kind?: "server" | "client" | "consumer" | "producer" } = {},
  ): Promise<T> {
    const parent = options.parent ? this.extract(options.parent) : this.contexts.active();
    const span = this.tracer.startSpan(name, { attributes, kind: kindOf(options.kind) }, parent);
    try {
      return await this.contexts.with(trace.setSpan(parent, span), () => fn(span));
    } catch (err) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.name : "error" });
      throw err;
    } finally {
      span.end();
    }
  }

  inject(carrier: Record<string, string>): Record<string, string> {
    this.propagator.inject(this.contexts.active(), carrier, defaultTextMapSetter);
    return carrier;
  }

  capture(): <T>(fn: () => Promise<T>) => Promise<T> {
    const ctx = this.contexts.active();
    return (fn) => this.contexts.with(ctx, fn);
  }

  connectInterceptor(): Interceptor {
    return (next) => async (req) => {
      const rpc = `${req.service.typeName}/${req.method.name}`;
      return this.span(
        rpc,
        { "rpc.system": "connect_rpc", "rpc.service": req.service.typeName, "rpc.method": req.method.name },
        async () => {
          for (const [k, v] of Object.entries(this.inject({}))) req.header.set(k, v);
          return next(req);
        },
        { kind: "client" },
      );
    };
  }

  connectServerInterceptor(): Interceptor {
    return (next) => async (req) => {
      const traceparent = req.header.get("traceparent");
      return this.span(
        `${req.service.typeName}/${req.method.name}`,
        { "rpc.system": "connect_rpc", "rpc.service": req.service.typeName, "rpc.method": req.method.name },
        () => next(req),
        traceparent ? { parent: { traceparent }, kind: "server" } : { kind: "server" },
      );
    };
  }

  async shutdown(): Promise<void> {
    await this.provider.shutdown();
    this.contexts.disable();
  }

  private extract(carrier: Record<string, string>): Context {
    return this.propagator.extract(ROOT_CONTEXT, carrier, defaultTextMapGetter);
  }
}

function kindOf(kind: "server" | "client" | "consumer" | "producer" | undefined): SpanKind {
  if (kind === "server") return SpanKind.SERVER;
  if (kind === "client") return SpanKind.CLIENT;
  if (kind === "consumer") return SpanKind.CONSUMER;
  if (kind === "producer") return SpanKind.PRODUCER;
  return SpanKind.INTERNAL;
}
