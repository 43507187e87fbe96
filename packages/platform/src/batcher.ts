/** What a batch call returns: one result per input, in the same order. */
export type BatchRun<I, O> = (inputs: I[]) => Promise<O[]>;

export interface BatcherOptions {
  /** Most inputs in one batch (default 256). */
  maxBatch?: number;
  /** Most batches on their way at once (default 2). */
  maxInFlight?: number;
}

interface Pending<I, O> {
  input: I;
  resolve: (output: O) => void;
  reject: (err: unknown) => void;
}

/**
 * Turns many single calls into few batch calls ("smart batching"). A call made while the batcher
 * is idle goes out on the next turn of the event loop, with whatever other calls that turn made;
 * calls made while `maxInFlight` batches are on their way wait for one of them to come back and
 * then go out together. So an idle service adds one event-loop turn of latency, and a busy one
 * sends batches as large as its load, with no timer to tune.
 *
 * A batch that fails rejects every call in it with the batch's error; a batch answering with the
 * wrong number of results rejects them all too (a broken server, not a partial answer).
 */
export class Batcher<I, O> {
  private readonly maxBatch: number;
  private readonly maxInFlight: number;
  private pending: Pending<I, O>[] = [];
  private inFlight = 0;
  private scheduled = false;

  constructor(
    private readonly run: BatchRun<I, O>,
    options: BatcherOptions = {},
  ) {
    this.maxBatch = Math.max(1, options.maxBatch ?? 256);
    this.maxInFlight = Math.max(1, options.maxInFlight ?? 2);
  }

  call(input: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.pending.push({ input, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight >= this.maxInFlight || this.pending.length === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  private flush(): void {
    while (this.inFlight < this.maxInFlight && this.pending.length > 0) {
      const batch = this.pending.splice(0, this.maxBatch);
      this.inFlight++;
      void this.send(batch);
    }
  }

  private async send(batch: Pending<I, O>[]): Promise<void> {
    try {
      const outputs = await this.run(batch.map((p) => p.input));
      if (outputs.length !== batch.length) {
        throw new Error(`a batch of ${batch.length} was answered with ${outputs.length} results`);
      }
      for (let i = 0; i < batch.length; i++) (batch[i] as Pending<I, O>).resolve(outputs[i] as O);
    } catch (err) {
      for (const p of batch) p.reject(err);
    } finally {
      this.inFlight--;
      this.schedule();
    }
  }
}
