import type { WatchRecordsResponse } from "@junction/contracts/scripts/v1/scripts_service_pb";
import type { Logger } from "@junction/platform";
import { z } from "zod";
import { parseWith, queryObject } from "../http/read-json.ts";
import type { RouteDoc } from "../openapi/route-doc.ts";
import type { Route, RouteContext } from "../router.ts";
import { connectionHeaders, connectionOf, name } from "./records.ts";

/** The query of GET /records/changes (strict). */
const changesQuery = z
  .object({
    model: name,
    variant: name.optional(),
    cursor: z
      .string()
      .min(1)
      .max(1000)
      .optional()
      .describe("Start after this record's cursor (a `_nango_metadata.cursor`); `Last-Event-ID` takes its place."),
  })
  .strict();
const feedHeaders = connectionHeaders.extend({
  "last-event-id": z.string().optional().describe("The last event's id (a cursor): the feed resumes after it."),
});

const encoder = new TextEncoder();

/** One SSE event of the feed's message; null for none. */
function eventText(message: WatchRecordsResponse): string | null {
  const e = message.event;
  if (e.case === "record") return `id: ${e.value.cursor}\ndata: ${e.value.recordJson}\n\n`;
  if (e.case === "heartbeat") return ": heartbeat\n\n";
  return null;
}

/**
 * GET /records/changes: a connection's records of a model as Server-Sent Events, one event per changed
 * record (its cursor as the event's id), heartbeats as comments. The feed comes from the scripts service
 * (WatchRecords); a refusal arrives before its first message and is answered as any error. The call is
 * cancelled when the client goes away, which ends the feed there.
 */
export function recordChangesRoute(): Route {
  return { method: "GET", pattern: "/records/changes", handler: followChanges, doc: changesDoc };
}

/** Opens the feed (a refusal is thrown before any byte is sent), then streams it as SSE. */
async function followChanges({ req, url, clients, logger }: RouteContext): Promise<Response> {
  const scope = connectionOf(req);
  const q = parseWith(changesQuery, queryObject(url), "invalid_query_params", "query");
  const resumeAt = req.headers.get("last-event-id")?.trim() || q.cursor || "";
  const call = new AbortController();
  const messages = clients.scripts
    .watchRecords({ ...scope, model: q.model, variant: q.variant ?? "", cursor: resumeAt }, { signal: call.signal })
    [Symbol.asyncIterator]();
  const first = await messages.next().catch((err: unknown) => {
    call.abort();
    throw err;
  });
  if (first.done || first.value.event.case !== "opened") {
    call.abort();
    throw new Error("the change feed ended before it opened");
  }
  return new Response(eventStream(req, messages, call, logger), {
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache",
      "x-accel-buffering": "no",
    },
  });
}

/** The feed's messages as SSE bytes; the call ends when the client goes away or the feed does. */
function eventStream(
  req: Request,
  messages: AsyncIterator<WatchRecordsResponse>,
  call: AbortController,
  logger: Logger,
): ReadableStream<Uint8Array> {
  const end = () => call.abort();
  req.signal.addEventListener("abort", end, { once: true });
  return new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(": open\n\n"));
    },
    async pull(controller) {
      try {
        for (;;) {
          const next = await messages.next();
          if (next.done) break;
          const text = eventText(next.value);
          if (text !== null) return controller.enqueue(encoder.encode(text));
        }
      } catch (err) {
        if (!call.signal.aborted) logger.warn("change feed ended by an error", { error: err });
      }
      req.signal.removeEventListener("abort", end);
      call.abort();
      controller.close();
    },
    cancel() {
      req.signal.removeEventListener("abort", end);
      call.abort();
    },
  });
}

const changesDoc: RouteDoc = {
  summary: "Follow a connection's records of a model (Server-Sent Events)",
  description:
    "Beyond Nango: one event per changed record, in cursor order, its `id` the record's cursor and its `data` the record as GET /records presents it; `: heartbeat` comments between. Resumes after `cursor` or the `Last-Event-ID` header (EventSource sends it when it reconnects); without either, from the first record. The feed ends when the client goes away, or when the connection's records of the model are removed. At most JUNCTION_SCRIPTS_RECORD_FEEDS_MAX feeds per environment.",
  tags: ["Records"],
  headers: feedHeaders,
  query: changesQuery,
  responses: {
    200: {
      description: "The feed: `id: <cursor>` and `data: <record JSON>` per changed record, `: heartbeat` comments.",
      contentType: "text/event-stream",
    },
  },
  errors: ["invalid_headers", "unknown_connection", "invalid_cursor", "too_many_feeds"],
  errorStatus: { unknown_connection: 400 },
};
