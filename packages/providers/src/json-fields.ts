/** Reading fields of upstream JSON bodies that may be anything: the adapters' channel-call readers. */

/** The body as a JSON object; {} when empty, not JSON, or not an object. */
export function parseObject(bytes: Uint8Array): Record<string, unknown> {
  if (bytes.byteLength === 0) return {};
  try {
    const value: unknown = JSON.parse(new TextDecoder().decode(bytes));
    return value !== null && typeof value === "object" && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

/** A string field's value; "" when it is not a string. */
export function text(value: unknown): string {
  return typeof value === "string" ? value : "";
}
