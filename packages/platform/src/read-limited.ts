/**
 * Reads a body stream as UTF-8 text, up to `limit` bytes: past that it stops reading, cancels the
 * stream and throws what `tooLarge()` makes. A null body is "".
 */
export async function readTextLimited(
  body: ReadableStream<Uint8Array> | null,
  limit: number,
  tooLarge: () => Error,
): Promise<string> {
  if (!body) return "";
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}
