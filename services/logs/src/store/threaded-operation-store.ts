import type { Logger } from "@junction/platform/logger";
import type { Counter, MetricsRegistry } from "@junction/platform/metrics";
import type { Operation } from "@junction/platform/operations/operation";
import type { OperationFilter, OperationPosition, OperationStore, RetentionBounds } from "./operation-store.ts";
import { settlesWithin } from "../settles-within.ts";
import { OperationWriter, type WriterCall } from "./operation-writer.ts";

export interface ThreadedOperationStoreOptions {
  /** The log's own SQLite file (`logs.sqlite` in the data dir). */
  file: string;
  /** The writer's page cache, MiB (JUNCTION_SQLITE_CACHE_MB). */
  cacheMb?: number;
  /** A file whose operations log, if it has one, is moved into `file` at start (the embedded `junction.sqlite`). */
  legacyFile?: string;
  logger: Logger;
  metrics?: MetricsRegistry;
  /** Longest wait at close for the writer to finish what it was handed (ms), before it is stopped. */
  closeTimeoutMs?: number;
}

/** Writers that fail to start in a row before the log stops trying (its reads still work). */
const START_ATTEMPTS = 3;

/**
 * The operations log in SQLite on a thread of its own: inserts, retention and reads go to one thread
 * (OperationWriter) that owns the log's own file; a batch crosses as one JSON string, and a read's answer
 * comes back as one, so the main thread spends on a batch only its serialisation and on a read only the
 * parse of its page. Reads on the main thread were measured too (a read connection under WAL): a page
 * filtered by connection cost it ~3.7 ms of CPU in a log of 100,000, a search matching most of them ~160 ms,
 * against ~0.3 ms and the parse through the thread.
 *
 * Memory stays bounded by the caller: `insert` resolves once the writer committed the batch, and the recorder
 * hands over one batch at a time, so a writer that falls behind fills the recorder's bounded buffer (and
 * drops are counted there), never a queue between threads. A writer thread that ends is reported once (a
 * warning, `junction_operations_writer_restarts_total`) and a new one starts with the next request; what it
 * held fails, as a sink failure.
 */
export class ThreadedOperationStore implements OperationStore {
  private writer: OperationWriter | undefined;
  private starting: Promise<OperationWriter> | undefined;
  private failedStarts = 0;
  private broken: Error | undefined;
  private closed = false;
  private readonly restarts: Counter | undefined;

  private constructor(private readonly options: ThreadedOperationStoreOptions) {
    this.restarts = options.metrics?.counter(
      "junction_operations_writer_restarts_total",
      "Times the operations log's writer thread ended and a new one took its place",
    );
  }

  /** Starts the writer (it creates or migrates the file and moves a legacy log in). */
  static async open(options: ThreadedOperationStoreOptions): Promise<{ store: ThreadedOperationStore; moved: number }> {
    const store = new ThreadedOperationStore(options);
    const { moved } = await store.startWriter(options.legacyFile);
    return { store, moved };
  }

  async insert(batch: Operation[]): Promise<void> {
    if (batch.length === 0) return;
    await this.send({ op: "insert", batch: JSON.stringify(batch) });
  }

  async insertEncoded(json: string): Promise<void> {
    await this.send({ op: "insert", batch: json });
  }

  async prune(bounds: RetentionBounds, nowMs: number): Promise<number> {
    return (await this.send({ op: "prune", bounds, nowMs })) as number;
  }

  async list(filter: OperationFilter, limit: number, after?: OperationPosition): Promise<Operation[]> {
    return JSON.parse((await this.send({ op: "list", filter, limit, ...(after ? { after } : {}) })) as string);
  }

  async get(id: string): Promise<Operation | undefined> {
    return JSON.parse((await this.send({ op: "get", key: id })) as string) ?? undefined;
  }

  async count(): Promise<number> {
    return (await this.send({ op: "count" })) as number;
  }

  /** Batches and retention runs handed to the writer and not answered yet. */
  get pendingWrites(): number {
    return this.writer?.waiting ?? 0;
  }

  /** The writer's thread (tests end it from outside, as a crash would). */
  get writerThread(): Worker | undefined {
    return this.writer?.thread;
  }

  /**
   * Lets the writer finish what it was handed (its requests run in order, the close last), then ends it; one
   * that does not answer within `closeTimeoutMs` is stopped, failing what it held, so a close never hangs.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const writer = this.writer;
    if (writer && !writer.dead) {
      const closing = writer.call({ op: "close" });
      if (!(await settlesWithin(closing, this.options.closeTimeoutMs ?? 5_000))) {
        this.options.logger.warn("operations log writer did not finish in time and was stopped", {
          pending: writer.waiting,
        });
      }
      writer.stop();
    }
  }

  /** Hands a request over at once when the writer is up (so requests reach it in the order they were made). */
  private send(request: WriterCall): Promise<number | string> {
    const writer = this.writer;
    if (writer && !writer.dead && !this.closed) return writer.call(request);
    return this.ready().then((w) => w.call(request));
  }

  private ready(): Promise<OperationWriter> {
    if (this.closed) return Promise.reject(new Error("the operations log is closed"));
    if (this.broken) return Promise.reject(this.broken);
    if (this.writer && !this.writer.dead) return Promise.resolve(this.writer);
    this.starting ??= this.startWriter().then(
      ({ writer }) => {
        this.starting = undefined;
        return writer;
      },
      (err: unknown) => {
        this.starting = undefined;
        throw err;
      },
    );
    return this.starting;
  }

  private async startWriter(legacyFile?: string): Promise<{ writer: OperationWriter; moved: number }> {
    const writer: OperationWriter = new OperationWriter((reason) => this.died(writer, reason));
    try {
      const moved = await writer.call({
        op: "open",
        file: this.options.file,
        cacheMb: this.options.cacheMb ?? 16,
        ...(legacyFile ? { legacyFile } : {}),
      });
      this.failedStarts = 0;
      if (this.closed) writer.stop();
      else this.writer = writer;
      return { writer, moved: moved as number };
    } catch (err) {
      writer.stop();
      if (++this.failedStarts >= START_ATTEMPTS && !this.broken) {
        this.broken = new Error(`the operations log's writer cannot start: ${(err as Error).message}`);
        this.options.logger.error("operations log writer cannot start; operations are not recorded", {
          error: (err as Error).message,
        });
      }
      throw err;
    }
  }

  private died(writer: OperationWriter, reason: string): void {
    if (writer !== this.writer || this.closed) return;
    this.writer = undefined;
    this.restarts?.inc();
    this.options.logger.warn("operations log writer stopped; a new one starts with the next batch", { reason });
  }
}
