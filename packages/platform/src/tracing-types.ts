import type { Interceptor } from "@connectrpc/connect";

/** What a traced piece of code may say about its span (never a token, a key or a query string). */
export interface SpanNote {
  setAttribute(key: string, value: string | number | boolean): unknown;
}

/**
 * A process's tracing (packages/platform/src/tracing.ts), handed to what it builds; absent when
 * tracing is off, so that code pays one `undefined` check and nothing else.
 */
export interface Tracing {
  /**
   * Runs `fn` in a new span: the child of the active span, or of the `traceparent` in `parent` when
   * given (a message received, a request's headers). Ended when `fn` settles; an error marks it.
   */
  span<T>(
    name: string,
    attributes: Record<string, string | number | boolean>,
    fn: (span: SpanNote) => Promise<T>,
    options?: { parent?: Record<string, string>; kind?: "server" | "client" | "consumer" | "producer" },
  ): Promise<T>;
  /** Adds the active span's `traceparent` to `carrier` (message or request headers) and returns it. */
  inject(carrier: Record<string, string>): Record<string, string>;
  /** The active span, kept: the function returned runs later work (a delivery) under it. */
  capture(): <T>(fn: () => Promise<T>) => Promise<T>;
  /** A Connect client interceptor: a client span per call, its `traceparent` sent in the headers. */
  connectInterceptor(): Interceptor;
  /** A Connect server interceptor: a server span per call, continuing the caller's `traceparent`. */
  connectServerInterceptor(): Interceptor;
  /** Exports what is left and stops. */
  shutdown(): Promise<void>;
}

/** The traces endpoint named by the standard variables, or undefined when tracing is off. */
export function tracesEndpoint(env: Record<string, string | undefined>): string | undefined {
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  if (traces) return traces;
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  return base ? `${base.replace(/\/+$/, "")}/v1/traces` : undefined;
}
