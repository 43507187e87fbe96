import type { LogLevel } from "../runtime/run-types.ts";

/** The line that replaces everything a run logs past its budget. */
export const truncationMarker = (maxLogBytes: number) =>
  `[logs truncated: this run logged more than ${maxLogBytes} bytes; later lines were dropped]`;

/**
 * Caps what one run may log, counted in UTF-8 bytes of the messages. The line that crosses the cap
 * is cut, a marker line follows, and every later line is dropped without being sent anywhere: a
 * script printing megabytes costs the parent nothing past the cap.
 */
export class LogBudget {
  private used = 0;
  private closed = false;

  constructor(
    private readonly maxBytes: number,
    private readonly emit: (level: LogLevel, message: string) => void,
  ) {}

  get truncated(): boolean {
    return this.closed;
  }

  /** Records a line; false once the budget is spent, so the script can stop formatting lines. */
  write(level: LogLevel, message: string): boolean {
    if (this.closed) return false;
    const bytes = Buffer.byteLength(message);
    if (this.used + bytes <= this.maxBytes) {
      this.used += bytes;
      this.emit(level, message);
      return true;
    }
    const room = this.maxBytes - this.used;
    if (room > 0) this.emit(level, cutToBytes(message, room));
    this.used = this.maxBytes;
    this.closed = true;
    this.emit("warn", truncationMarker(this.maxBytes));
    return false;
  }
}

/** The longest prefix of `text` that fits in `bytes` UTF-8 bytes, never splitting a character. */
export function cutToBytes(text: string, bytes: number): string {
  const encoded = Buffer.from(text.slice(0, bytes));
  if (encoded.length <= bytes) return text.slice(0, bytes);
  let end = bytes;
  // step back over UTF-8 continuation bytes (10xxxxxx) so a character is never cut in half
  while (end > 0 && ((encoded[end] as number) & 0xc0) === 0x80) end--;
  return encoded.subarray(0, end).toString("utf8");
}
