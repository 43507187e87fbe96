import type { Database } from "bun:sqlite";
import type { Logger } from "@junction/platform/logger";
import type { Counter, MetricsRegistry } from "@junction/platform/metrics";
import type { Operation } from "@junction/platform/operations/operation";
import { openDatabase } from "@junction/platform/sqlite";
import type { OperationFilter, OperationPosition, OperationStore, RetentionBounds } from "./operation-store.ts";
import { settlesWithin } from "../settles-within.ts";
import { OperationWriter, type WriterCall } from "./operation-writer.ts";
import { SqliteOperationStore } from "./sqlite-operation-store.ts";

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
// Reads (a page of the list, one operation) are served mostly from the memory map; the cache holds the
// pages the WAL has newer copies of.
const READER_CACHE_MB = 2;

/**
 * The operations log in SQLite with its writes on a thread of their own: inserts and retention go to a writer
 * thread (OperationWriter) that owns the log's own file, a batch crossing as one JSON string, so the main
 * thread spends on a batch only its serialisation. Retention (its runs and its count) is the writer's too. Reads
 * (the list, one operation) are answered on the calling thread from a read connection of the same file: under
 * WAL they never wait for the writer, and a page is a few index entries and rows.
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
  private readerDb!: Database;
  private reader!: SqliteOperationStore;
  private readonly restarts: Counter | undefined;

  private constructor(private readonly options: ThreadedOperationStoreOptions) {
    this.restarts = options.metrics?.counter(
      "junction_operations_writer_restarts_total",
      "Times the operations log's writer thread ended and a new one took its place",
    );
  }

  /** Starts the writer (it creates or migrates the file and moves a legacy log in), then opens the reader. */
  static async open(options: ThreadedOperationStoreOptions): Promise<{ store: ThreadedOperationStore; moved: number }> {
    const store = new ThreadedOperationStore(options);
    const { moved } = await store.startWriter(options.legacyFile);
    store.readerDb = openDatabase(options.file, { cacheMb: READER_CACHE_MB });
    store.reader = new SqliteOperationStore(store.readerDb);
    return { store, moved };
  }

  async insert(batch: Operation[]): Promise<void> {
    if (batch.length === 0) return;
    await this.send({ op: "insert", batch: JSON.stringify(batch) });
  }

  prune(bounds: RetentionBounds, nowMs: number): Promise<number> {
    return this.send({ op: "prune", bounds, nowMs });
  }

  list(filter: OperationFilter, limit: number, after?: OperationPosition): Promise<Operation[]> {
    return this.reader.list(filter, limit, after);
  }

  get(id: string): Promise<Operation | undefined> {
    return this.reader.get(id);
  }

  /** Counted by the writer: retention asks after each run, and counting a full log takes milliseconds. */
  count(): Promise<number> {
    return this.send({ op: "count" });
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
    this.readerDb?.close();
  }

  /** Hands a request over at once when the writer is up (so requests reach it in the order they were made). */
  private send(request: WriterCall): Promise<number> {
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
      return { writer, moved };
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
