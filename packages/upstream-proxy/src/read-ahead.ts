/**
 * Answers above this Content-Length are read ahead (see `readAhead`); smaller ones are passed on as
 * fetch gave them, which is faster for them. From 15 KiB on, an answer written after the request's first
 * tick (a proxied one always is) costs Bun.serve (1.4.5) several times as much when it is bytes or
 * fetch's own body, and not when it is a direct stream (figures: docs/benchmarks.md, "Proxy → Fifth
 * session").
 */
export const READ_AHEAD_ABOVE_BYTES = 14 * 1024;
/**
 * Larger answers are passed on as fetch gave them: from here on Bun writes them natively at about the
 * bare passthrough's pace, and reading them ahead buys a little throughput for a longer tail and twice
 * the memory. Every byte read in JavaScript is a buffer the collector must reclaim; the ones in flight
 * outlive eden collections, so full collections come several times as often (figures: docs/benchmarks.md,
 * "Proxy → Tenth session").
 */
export const READ_AHEAD_UP_TO_BYTES = 64 * 1024;

/** Statuses that are never read ahead: no body (204, 205) or not the final answer (1xx). */
const SUCCESS_WITH_BODY = (status: number) => status >= 200 && status < 300 && status !== 204 && status !== 205;

/**
 * Whether the upstream's answer to `method` is worth reading ahead: a 2xx body of a known length above
 * READ_AHEAD_ABOVE_BYTES and up to READ_AHEAD_UP_TO_BYTES. A body of unknown length may be an
 * open-ended stream (server-sent events, a long poll), whose first bytes may take long: it is passed on
 * at once.
 */
export function readsAhead(res: Response, method: string, status: number = res.status): boolean {
  if (method === "HEAD" || !SUCCESS_WITH_BODY(status)) return false;
  const length = Number(res.headers.get("content-length") ?? Number.NaN);
  // `res.body` last: on Bun, reading it makes a JavaScript stream of a body that would otherwise be
  // piped natively (~6 % of the CPU of a small proxied call when it was read first, for every answer).
  return length > READ_AHEAD_ABOVE_BYTES && length <= READ_AHEAD_UP_TO_BYTES && res.body !== null;
}

/**
 * The upstream's answer with the first chunks of its body already received, then the rest streamed
 * through a Bun "direct" stream that waits for the caller to take each chunk (bounded memory).
 *
 * Why, on Bun 1.4.5: an answer of bytes or fetch's own body written outside the request's first tick
 * is slow from ~15 KiB on (READ_AHEAD_ABOVE_BYTES), and Bun writes the status line and headers of
 * fetch's streamed body with one `send` per piece (name, ": ", value, line end: four per header).
 * A direct stream whose first chunks are at hand when Bun starts writing avoids both: its headers and
 * first chunks go out in one `send` (on a 100 KB answer ~3 system calls per request instead of ~16).
 * A body that arrived whole streams the same way: answered as bytes, it would be the slow case.
 * Framing: Bun sends a direct stream chunked, without the upstream's Content-Length. Rejects if the
 * upstream fails before the first two chunks (the caller's deadline and abort apply, as for the
 * headers).
 */
export async function readAhead(res: Response): Promise<Response> {
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const init = { status: res.status, statusText: res.statusText, headers: res.headers };
  let first: Awaited<ReturnType<typeof reader.read>>;
  let second: typeof first;
  try {
    first = await reader.read();
    second = first.done ? first : await reader.read();
  } catch (err) {
    reader.cancel().catch(() => {});
    throw err;
  }
  const received = first.done ? [] : second.done ? [first.value] : [first.value, second.value];
  return new Response(passOn(reader, received), init);
}

const BROKE_OFF = "proxy: the upstream broke off before the end of the body; the caller's connection was closed";

/**
 * A direct stream writing `received`, then the rest of `reader`, each write awaited when the caller
 * is slower than the upstream. An upstream failure ends the caller's connection without the end of the
 * body (never a clean, shorter body); a caller that leaves cancels the upstream.
 */
function passOn(reader: ReadableStreamDefaultReader<Uint8Array>, received: Uint8Array[]): ReadableStream<Uint8Array> {
  let held: Uint8Array[] | undefined = received;
  const source: Bun.DirectUnderlyingSource<Uint8Array> = {
    type: "direct",
    async pull(controller) {
      const pass = async (chunk: Uint8Array) => {
        const written = controller.write(chunk);
        if (typeof written !== "number") await written;
      };
      try {
        for (const chunk of held ?? []) await pass(chunk);
        held = undefined;
        for (;;) {
          let next: Awaited<ReturnType<typeof reader.read>>;
          try {
            next = await reader.read();
          } catch {
            // Closing with a reason cuts the caller's connection. A string: Bun prints the reason on
            // stderr, where an Error or fetch's own would come with a stack trace and the upstream's path.
            controller.close(BROKE_OFF as unknown as Error);
            return;
          }
          if (next.done) break;
          await pass(next.value);
        }
      } catch {
        // A write failed: the caller is gone. Nothing is left to answer; the upstream is let go below.
        reader.cancel().catch(() => {});
        return;
      }
      controller.close();
    },
    cancel(reason) {
      held = undefined;
      return reader.cancel(reason);
    },
  };
  // The DOM library's overloads of the constructor hide Bun's own for direct sources.
  return new ReadableStream(source as unknown as UnderlyingDefaultSource<Uint8Array>);
}
