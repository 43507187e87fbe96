import type { StateChanges } from "./state-changes.ts";

/** One POST a fake made to a receiver, recorded when it finished (whatever the outcome). */
export interface JsonDelivery<M> {
  /** What the fake says the delivery was (its own fields: ids, kind, fault...). */
  meta: M;
  url: string;
  headers: Record<string, string>;
  body: string;
  /** HTTP status from the receiver; null when the request failed or timed out. */
  status: number | null;
  /** The receiver's answer (first 4 KiB), for handshakes that must echo something. */
  answer: string;
  error?: string;
  /** Injected-clock time the delivery was queued. */
  at: number;
}

const ANSWER_LIMIT = 4096;

/**
 * Sends a fake's outgoing POSTs (push notifications, notification batches) one attempt each, in order
 * per queue key, and records every finished one. Upstream retries are not modelled: tests redeliver
 * on purpose. Never waits for the receiver in `send`; `idle()` does.
 */
export class JsonDeliveries<M> {
  readonly attempts: JsonDelivery<M>[] = [];
  private readonly queues = new Map<string, Promise<unknown>>();
  private readonly closing = new AbortController();

  constructor(
    private readonly settings: { now: () => number; timeoutMs: number },
    private readonly changes: StateChanges,
  ) {}

  /** Queues a POST behind the others of `key`; resolves with its record (undefined once closed). */
  send(
    key: string,
    request: {
      url: string;
      headers: Record<string, string>;
      body: string;
      meta: M;
      /** Headers made when the delivery starts (a token signed then), recorded with the others. */
      lateHeaders?: () => Promise<Record<string, string>>;
    },
  ): Promise<JsonDelivery<M> | undefined> {
    const at = this.settings.now();
    // A macrotask first, so the answer to the call that caused it leaves before the delivery.
    const previous = this.queues.get(key) ?? new Promise<void>((resolve) => setTimeout(resolve, 0));
    const { lateHeaders, ...fields } = request;
    const next = previous.then(async () => {
      const headers = lateHeaders ? { ...fields.headers, ...(await lateHeaders()) } : fields.headers;
      return this.deliver({ ...fields, headers, at });
    });
    this.queues.set(key, next);
    void next.finally(() => {
      if (this.queues.get(key) === next) this.queues.delete(key);
    });
    return next;
  }

  /** One POST now, not queued nor recorded (a handshake the caller waits on); throws when it fails. */
  async post(url: string, headers: Record<string, string>, body: string, timeoutMs: number) {
    const response = await fetch(url, {
      method: "POST",
      headers,
      body,
      redirect: "manual",
      signal: AbortSignal.any([this.closing.signal, AbortSignal.timeout(timeoutMs)]),
    });
    return { status: response.status, headers: response.headers, answer: await readAnswer(response) };
  }

  private async deliver(
    request: Omit<JsonDelivery<M>, "status" | "answer" | "error">,
  ): Promise<JsonDelivery<M> | undefined> {
    if (this.closing.signal.aborted) return undefined;
    let status: number | null = null;
    let answer = "";
    let error: string | undefined;
    try {
      const got = await this.post(request.url, request.headers, request.body, this.settings.timeoutMs);
      status = got.status;
      answer = got.answer;
    } catch (cause) {
      error = cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause);
    }
    if (this.closing.signal.aborted) return undefined;
    const record: JsonDelivery<M> = { ...request, status, answer, ...(error !== undefined ? { error } : {}) };
    this.attempts.push(record);
    this.changes.changed();
    return record;
  }

  /** Resolves with the finished attempts once `n` of them satisfy `filter`. */
  async awaitAttempts(
    n: number,
    timeoutMs: number,
    filter: (attempt: JsonDelivery<M>) => boolean = () => true,
  ): Promise<JsonDelivery<M>[]> {
    const matching = () => this.attempts.filter(filter);
    await this.changes.waitUntil(
      () => matching().length >= n,
      timeoutMs,
      () => `wanted ${n} deliveries, got ${matching().length}: ${JSON.stringify(this.attempts.map((a) => a.meta))}`,
    );
    return [...this.attempts];
  }

  /** Resolves when nothing is queued or in flight. */
  async idle(): Promise<void> {
    while (this.queues.size > 0) await Promise.allSettled([...this.queues.values()]);
  }

  close(): void {
    this.closing.abort();
  }
}

async function readAnswer(response: Response): Promise<string> {
  const text = await response.text();
  return text.length > ANSWER_LIMIT ? text.slice(0, ANSWER_LIMIT) : text;
}
