/**
 * Helpers shared by the notifications-*.test.ts files: a customer receiver whose answers a test
 * controls, and short ways to create integrations and connections and send notifications.
 */
import { create, type JsonObject, toBinary } from "@bufbuild/protobuf";
import { queues } from "@junction/bus";
import { DeliveryRequestedSchema } from "@junction/contracts/events/v1/events_pb";
import { emailAddressHash } from "@junction/connection-service";
import type { TestJunction } from "../support/embedded-junction.ts";
import { waitFor } from "../support/wait-for.ts";

/** A request the customer receiver got. */
export interface Delivery {
  headers: Record<string, string>;
  body: string;
  /** Wall-clock arrival time. */
  at: number;
  /** What the receiver answered with. */
  status: number;
}

/** What the receiver answers: a status with optional headers and body, or "hang" (never answers). */
export type Answer = { status: number; headers?: Record<string, string>; body?: string } | "hang";

export interface CustomerReceiver {
  url: string;
  port: number;
  received: Delivery[];
  /** Sets the answer for every request from now on (default 200). */
  answer(answer: Answer | ((n: number) => Answer)): void;
  /** Resolves once at least `n` requests arrived (throws after `timeoutMs`). */
  waitFor(n: number, timeoutMs?: number): Promise<Delivery[]>;
  /** Deliveries answered 2xx. */
  succeeded(): Delivery[];
  stop(): Promise<void>;
  /** Starts listening again on the same port. */
  restart(): Promise<void>;
}

/** A local stand-in for the customer's webhook receiver. */
export function startCustomerReceiver(port = 0): CustomerReceiver {
  const received: Delivery[] = [];
  let answer: Answer | ((n: number) => Answer) = { status: 200 };
  const hanging = new Set<() => void>();
  let server: ReturnType<typeof Bun.serve>;
  const listen = (p: number) =>
    Bun.serve({
      port: p,
      hostname: "127.0.0.1",
      async fetch(req) {
        const headers: Record<string, string> = {};
        req.headers.forEach((v, k) => {
          headers[k] = v;
        });
        const body = await req.text();
        const chosen = typeof answer === "function" ? answer(received.length + 1) : answer;
        if (chosen === "hang") {
          received.push({ headers, body, at: Date.now(), status: 0 });
          await new Promise<void>((resolve) => hanging.add(resolve));
          return new Response(null, { status: 503 });
        }
        received.push({ headers, body, at: Date.now(), status: chosen.status });
        return new Response(chosen.body ?? "", { status: chosen.status, headers: chosen.headers });
      },
    });
  server = listen(port);
  const boundPort = server.port as number;
  return {
    url: `http://127.0.0.1:${boundPort}/hooks`,
    port: boundPort,
    received,
    answer(next) {
      answer = next;
    },
    async waitFor(n, timeoutMs = 10_000) {
      await waitFor(
        `${n} deliveries to the customer receiver (got ${received.length})`,
        () => received.length >= n,
        timeoutMs,
      );
      return [...received];
    },
    succeeded: () => received.filter((d) => d.status >= 200 && d.status < 300),
    async stop() {
      for (const release of hanging) release();
      hanging.clear();
      await server.stop(true);
    },
    async restart() {
      server = listen(boundPort);
    },
  };
}

/** The deployment's environment id (part of every webhook URL). */
export async function environmentId(j: TestJunction): Promise<string> {
  return (await j.clients.connection.getEnvironment({})).environment?.id ?? "";
}

/** Creates a calendar integration and points the webhook endpoints at `urls`. */
export async function setupCalendar(j: TestJunction, urls: string[], key = "cal"): Promise<void> {
  const created = await j.api("POST", "/integrations", { unique_key: key, provider: "google-calendar" });
  if (created.status !== 200) throw new Error(`integration not created: ${created.text}`);
  const settings = await j.api("PUT", "/webhook-settings", { endpoints: urls });
  if (settings.status !== 200) throw new Error(`endpoints not set: ${settings.text}`);
}

/** Creates a connection with metadata and, when `email` is given, connection_config.emailAddressHash. */
export async function addConnection(
  j: TestJunction,
  connectionId: string,
  options: { key?: string; metadata?: Record<string, unknown>; hashOf?: string } = {},
): Promise<void> {
  await j.clients.connection.createConnection({
    providerConfigKey: options.key ?? "cal",
    connectionId,
    metadata: (options.metadata ?? {}) as JsonObject,
    connectionConfig: (options.hashOf ? { emailAddressHash: emailAddressHash(options.hashOf) } : {}) as JsonObject,
  });
}

/** The resource URI the upstream sends for a calendar's events (encoded as it does). */
export function eventsUri(calendarId: string, query = "?alt=json"): string {
  return `https://www.googleapis.com/calendar/v3/calendars/${encodeURIComponent(calendarId)}/events${query}`;
}

let channelSeq = 0;

/** Headers of a notification as the real upstream sends them (x-goog-*). */
export function googHeaders(
  uri: string,
  over: { channelId?: string; number?: number; state?: string; token?: string } = {},
): Record<string, string> {
  return {
    "X-Goog-Channel-ID": over.channelId ?? `channel-${++channelSeq}`,
    "X-Goog-Message-Number": String(over.number ?? 1),
    "X-Goog-Resource-ID": "resource-1",
    "X-Goog-Resource-State": over.state ?? "exists",
    "X-Goog-Resource-URI": uri,
    ...(over.token !== undefined ? { "X-Goog-Channel-Token": over.token } : {}),
  };
}

/** Headers with the spec's names (x-provider-*), and only those five. */
export function providerHeaders(
  uri: string,
  over: { channelId?: string; number?: number } = {},
): Record<string, string> {
  return {
    "x-provider-channel-id": over.channelId ?? `channel-${++channelSeq}`,
    "x-provider-message-number": String(over.number ?? 1),
    "x-provider-resource-id": "resource-1",
    "x-provider-resource-state": "exists",
    "x-provider-resource-uri": uri,
  };
}

/** POSTs a notification to the integration's webhook URL, as the upstream does (no body). */
export async function notify(
  j: TestJunction,
  headers: Record<string, string>,
  options: { key?: string; env?: string; body?: string; method?: string } = {},
): Promise<{ status: number; body: any; headers: Headers }> {
  const env = options.env ?? (await environmentId(j));
  const res = await fetch(`${j.url}/webhook/${env}/${options.key ?? "cal"}`, {
    method: options.method ?? "POST",
    headers,
    body: options.body,
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {}
  return { status: res.status, body, headers: res.headers };
}

/** The forwarded message bodies the receiver got, parsed. */
export function bodies(deliveries: Delivery[]): Array<{
  from: string;
  providerConfigKey: string;
  type: string;
  payload: Record<string, string>;
  connectionId?: string;
}> {
  return deliveries.map((d) => JSON.parse(d.body));
}

/** Waits until the delivery log lists `n` messages matching `query`, and returns them. */
export async function waitForMessages(j: TestJunction, n: number, query = "", timeoutMs = 10_000): Promise<any[]> {
  return waitFor(
    `${n} messages in the delivery log${query ? ` (${query})` : ""}`,
    async () => {
      const res = await j.api("GET", `/webhook-messages?limit=500${query ? `&${query}` : ""}`);
      return res.status === 200 && res.body.data.length >= n ? res.body.data : null;
    },
    timeoutMs,
  );
}

/** Waits until one message reaches `status`, and returns it with its attempts. */
export async function waitForStatus(j: TestJunction, id: string, status: string, timeoutMs = 10_000): Promise<any> {
  return waitFor(
    `message ${id} to be ${status}`,
    async () => {
      const res = await j.api("GET", `/webhook-messages/${id}`);
      return res.body?.data?.status === status ? res.body.data : null;
    },
    timeoutMs,
  );
}

/** Puts an auth message for `connectionId` on the delivery queue, as the OAuth flow does. */
export async function enqueueAuthMessage(j: TestJunction, messageId: string, connectionId: string, body: string) {
  const event = create(DeliveryRequestedSchema, {
    messageId,
    environmentId: await environmentId(j),
    type: "auth",
    body: new TextEncoder().encode(body),
    providerConfigKey: "cal",
    connectionId,
  });
  await j.bus.enqueue(queues.webhookDelivery, toBinary(DeliveryRequestedSchema, event), { msgId: messageId });
}
