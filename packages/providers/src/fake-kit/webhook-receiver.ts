import { StateChanges } from "./state-changes.ts";

export interface ReceivedWebhook {
  method: string;
  path: string;
  /** Lowercased names. */
  headers: Record<string, string>;
  body: string;
}

export interface WebhookReceiver {
  /** POST target, e.g. `http://127.0.0.1:40001/webhook`. */
  url: string;
  received: ReceivedWebhook[];
  /** Status to answer with from now on (default 200). */
  respondWith(status: number): void;
  /** Resolves with everything received once at least `n` requests arrived. */
  waitFor(n: number, timeoutMs?: number): Promise<ReceivedWebhook[]>;
  stop(): Promise<void>;
}

/** A stand-in for an HTTP receiver (a customer app, or Junction's inbound endpoint) that records requests. */
export function startWebhookReceiver(): WebhookReceiver {
  const received: ReceivedWebhook[] = [];
  const changes = new StateChanges();
  let status = 200;
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      const headers: Record<string, string> = {};
      request.headers.forEach((value, name) => {
        headers[name] = value;
      });
      received.push({
        method: request.method,
        path: new URL(request.url).pathname,
        headers,
        body: await request.text(),
      });
      changes.changed();
      return new Response(null, { status });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}/webhook`,
    received,
    respondWith(next) {
      status = next;
    },
    async waitFor(n, timeoutMs = 5000) {
      await changes.waitUntil(
        () => received.length >= n,
        timeoutMs,
        () => `wanted ${n} webhooks, got ${received.length}`,
      );
      return [...received];
    },
    async stop() {
      await server.stop(true);
    },
  };
}
