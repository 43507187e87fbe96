import type { WriterAnswer, WriterRequest } from "./operation-writer-worker.ts";

/** A request without its id (the writer numbers them). */
export type WriterCall = WriterRequest extends infer R ? (R extends WriterRequest ? Omit<R, "id"> : never) : never;

/** Bun's Worker: whether it keeps the process alive is switched per state (the DOM's type has no such methods). */
type ThreadWorker = Worker & { ref(): void; unref(): void };

interface Pending {
  resolve(value: number | string): void;
  reject(err: Error): void;
}

/**
 * One writer thread: a Bun Worker running operation-writer-worker.ts, its requests and their answers. It keeps
 * the process alive only while a request is waiting (an idle writer never holds an exit back). When the
 * thread ends on its own (an uncaught error, a terminate from outside), every waiting request fails and
 * `onDeath` is called once.
 */
export class OperationWriter {
  private readonly worker: ThreadWorker;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private ended = false;

  constructor(private readonly onDeath: (reason: string) => void) {
    this.worker = new Worker(new URL("./operation-writer-worker.ts", import.meta.url).href) as ThreadWorker;
    this.worker.unref();
    this.worker.onmessage = (event: MessageEvent<WriterAnswer>) => this.answer(event.data);
    this.worker.addEventListener("error", (event) => {
      this.end(`its thread failed: ${(event as ErrorEvent).message}`);
      this.worker.terminate();
    });
    this.worker.addEventListener("close", () => this.end("its thread ended"));
  }

  /** Whether the thread is gone (a new writer takes its place). */
  get dead(): boolean {
    return this.ended;
  }

  /** Requests waiting for their answer. */
  get waiting(): number {
    return this.pending.size;
  }

  call(request: WriterCall): Promise<number | string> {
    if (this.ended) return Promise.reject(new Error("the operations log's writer has stopped"));
    const id = this.nextId++;
    const done = new Promise<number | string>((resolve, reject) => this.pending.set(id, { resolve, reject }));
    if (this.pending.size === 1) this.worker.ref();
    this.worker.postMessage({ ...request, id });
    return done;
  }

  /** Ends the thread now, failing what waits (close: after the writer answered, or gave up on). */
  stop(): void {
    if (this.ended) return;
    this.ended = true;
    this.failAll("the operations log's writer was stopped");
    this.worker.terminate();
  }

  /** The thread itself (tests end it from outside, as a crash would). */
  get thread(): Worker {
    return this.worker;
  }

  private answer(a: WriterAnswer): void {
    const p = this.pending.get(a.id);
    if (!p) return;
    this.pending.delete(a.id);
    if (this.pending.size === 0) this.worker.unref();
    if (a.ok) p.resolve(a.value);
    else p.reject(new Error(a.error));
  }

  private end(reason: string): void {
    if (this.ended) return;
    this.ended = true;
    this.failAll(`the operations log's writer stopped: ${reason}`);
    this.onDeath(reason);
  }

  private failAll(message: string): void {
    const waiting = [...this.pending.values()];
    this.pending.clear();
    this.worker.unref();
    for (const p of waiting) p.reject(new Error(message));
  }
}
