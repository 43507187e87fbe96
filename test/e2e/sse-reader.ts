/** One Server-Sent Event as read: its id and data lines, or a comment. */
export interface SseEvent {
  id?: string;
  data?: string;
  comment?: string;
}

/** Reads a text/event-stream body event by event; `next` waits for the next one (null at the end). */
export function sseReader(body: ReadableStream<Uint8Array>) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  const parse = (block: string): SseEvent => {
    const event: SseEvent = {};
    for (const line of block.split("\n")) {
      if (line.startsWith(":")) event.comment = line.slice(1).trim();
      else if (line.startsWith("id: ")) event.id = line.slice(4);
      else if (line.startsWith("data: ")) event.data = (event.data ? `${event.data}\n` : "") + line.slice(6);
    }
    return event;
  };
  return {
    async next(): Promise<SseEvent | null> {
      for (;;) {
        const end = buffer.indexOf("\n\n");
        if (end >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          return parse(block);
        }
        const chunk = await reader.read();
        if (chunk.done) return null;
        buffer += decoder.decode(chunk.value, { stream: true });
      }
    },
    /** The next event that is a record (skips comments). */
    async nextRecord(): Promise<SseEvent | null> {
      for (;;) {
        const e = await this.next();
        if (e === null || e.data !== undefined) return e;
      }
    },
    cancel: () => reader.cancel(),
  };
}
