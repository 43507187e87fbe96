/**
 * Reads a body stream to its end, up to `limit` bytes: past that it stops reading, cancels the stream
 * and answers null. A null body is empty. A failing stream throws.
 */
export async function readBytesLimited(
  body: ReadableStream<Uint8Array> | null,
  limit: number,
): Promise<Uint8Array | null> {
  if (!body) return new Uint8Array(0);
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      return null;
    }
    chunks.push(value);
  }
  if (chunks.length === 1 && chunks[0]) return chunks[0];
  return Buffer.concat(chunks, size);
}

/**
 * Reads a body stream as UTF-8 text, up to `limit` bytes: past that it stops reading, cancels the
 * stream and throws what `tooLarge()` makes. A null body is "".
 */
export async function readTextLimited(
  body: ReadableStream<Uint8Array> | null,
  limit: number,
  tooLarge: () => Error,
): Promise<string> {
  const bytes = await readBytesLimited(body, limit);
  if (bytes === null) throw tooLarge();
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8");
}
