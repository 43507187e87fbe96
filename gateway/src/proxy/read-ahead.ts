/**
 * Answers above this Content-Length are read ahead (see `readAhead`); smaller ones are passed on as
 * fetch gave them. Measured on Bun 1.4.5 (docs/benchmarks.md, "Proxy → Reading large answers ahead"):
 * at 4–12 KiB passing fetch's answer on is 10–20 % faster, at 16 KiB the two are even, from 24 KiB on
 * reading ahead is up to twice as fast.
 */
export const READ_AHEAD_ABOVE_BYTES = 16 * 1024;
/**
 * Larger answers are passed on as fetch gave them: their headers are a small share of their cost
 * (+5 % at 256 KiB), and read in JavaScript a 100 MB body raised the process's peak memory by ~25 MiB
 * (garbage chunks awaiting collection) against ~3 MiB when Bun pipes it.
 */
export const READ_AHEAD_UP_TO_BYTES = 1024 * 1024;

/** Statuses that are never read ahead: no body (204, 205) or not the final answer (1xx). */
const SUCCESS_WITH_BODY = (status: number) => status >= 200 && status < 300 && status !== 204 && status !== 205;

/**
 * Whether the upstream's answer to `method` is worth reading ahead: a 2xx body of a known length above
 * READ_AHEAD_ABOVE_BYTES and up to READ_AHEAD_UP_TO_BYTES. A body of unknown length may be an open-ended stream (server-sent events, a
 * long poll), whose first bytes may take long: it is passed on at once.
 */
export function readsAhead(res: Response, method: string): boolean {
  if (method === "HEAD" || res.body === null || !SUCCESS_WITH_BODY(res.status)) return false;
  const length = Number(res.headers.get("content-length") ?? Number.NaN);
  return length > READ_AHEAD_ABOVE_BYTES && length <= READ_AHEAD_UP_TO_BYTES;
}

/**
 * The upstream's answer with the first chunks of its body already received, then the rest streamed
 * through a Bun "direct" stream that waits for the caller to take each chunk (bounded memory).
 *
 * Why: Bun 1.4.5 writes the status line and headers of a streamed answer with one `send` per piece
 * (name, ": ", value, line end: four per header), then the body. An answer whose first chunks are at
 * hand when Bun starts writing goes out with its headers in one `send`: on a 100 KB answer this took
 * from ~16 system calls per request to ~3 and raised the proxy's throughput by a third. A body that
 * arrived whole is answered as bytes. Rejects if the upstream fails before the first two chunks (the
 * caller's deadline and abort apply, as for the headers).
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
  const declared = Number(res.headers.get("content-length"));
  if (first.done) return new Response(passOn(reader, []), init);
  if (second.done && first.value.byteLength === declared)
    return new Response(first.value as Uint8Array<ArrayBuffer>, init);
  return new Response(passOn(reader, second.done ? [first.value] : [first.value, second.value]), init);
}

const BROKE_OFF = "proxy: the upstream broke off before the end of the body; the caller's connection was closed";

/**
 * A direct stream writing `received`, then the rest of `reader`, each write awaited when the caller
 * is slower than the upstream. An upstream failure errors the stream, so the caller's connection ends
 * without the end of the body (never a clean, shorter body); a caller that leaves cancels the upstream.
 */
function passOn(reader: ReadableStreamDefaultReader<Uint8Array>, received: Uint8Array[]): ReadableStream<Uint8Array> {
  let held: Uint8Array[] | undefined = received;
  const source: Bun.DirectUnderlyingSource<Uint8Array> = {
    type: "direct",
    async pull(controller) {
      try {
        for (const chunk of held ?? []) {
          const written = controller.write(chunk);
          if (typeof written !== "number") await written;
        }
        held = undefined;
        for (let next = await reader.read(); !next.done; next = await reader.read()) {
          const written = controller.write(next.value);
          if (typeof written !== "number") await written;
        }
      } catch {
        reader.cancel().catch(() => {});
        // Closing with a reason ends the caller's connection without the body's end. A string: Bun
        // prints the reason on stderr, and an Error or the fetch error would come with a stack trace
        // and the upstream's path.
        controller.close(BROKE_OFF as unknown as Error);
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
