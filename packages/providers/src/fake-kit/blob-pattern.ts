import { createHash } from "node:crypto";

// 251 is prime, so a chunk that is dropped, repeated or reordered changes the hash.
const PERIOD = 251;
/** A whole number of periods, so every chunk starts the pattern afresh and can share one template. */
const CHUNK_BYTES = PERIOD * 261;
const TEMPLATE = Uint8Array.from({ length: CHUNK_BYTES }, (_, i) => i % PERIOD);

/** The deterministic content of `/blob/{bytes}`, in chunks of about 64 KiB: byte i is `i % 251`. */
export function* blobChunks(total: number): Generator<Uint8Array> {
  for (let sent = 0; sent < total; sent += CHUNK_BYTES) {
    yield TEMPLATE.slice(0, Math.min(CHUNK_BYTES, total - sent));
  }
}

/** The sha256 (hex) of `/blob/{bytes}`, computed without holding the blob. */
export function blobSha256(total: number): string {
  const hash = createHash("sha256");
  for (const chunk of blobChunks(total)) hash.update(chunk);
  return hash.digest("hex");
}

/** A pull-based stream of the blob: a chunk is made only when the reader asks for one. */
export function blobStream(total: number): ReadableStream<Uint8Array> {
  const chunks = blobChunks(total);
  return new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        const next = chunks.next();
        if (next.done) controller.close();
        else controller.enqueue(next.value);
      },
    },
    { highWaterMark: 0 },
  );
}
