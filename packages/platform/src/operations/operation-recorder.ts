import { type Clock, systemClock, type TimerHandle } from "../clock.ts";
import { newId } from "../ids.ts";
import { redactFields } from "../logger.ts";
import type { Counter, MetricsRegistry } from "../metrics.ts";
import {
  type DeliveryRoundFacts,
  deliveryRoundOperation,
  encodeDeliveryRound,
  operationFromJson,
} from "./delivery-round.ts";
import type { Operation, OperationInput, OperationMessage } from "./operation.ts";
import { MinuteTotals } from "./minute-totals.ts";
import { NOTIFICATION_RECEIPT_TOTALS, PROXY_CALL_TOTALS } from "./totals-kinds.ts";

// The default for an operation without tags or messages: one shared empty array, never written to
// (operations are read and serialised, never changed), instead of two new ones per proxy call.
const NONE: never[] = Object.freeze([]) as never[];

/** The messages with their fields redacted; the caller's array itself when no field needed it. */
function redactMessages(messages: OperationMessage[]): OperationMessage[] {
  let out: OperationMessage[] | undefined;
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i] as OperationMessage;
    if (!m.fields) continue;
    const fields = redactFields(m.fields);
    if (fields === m.fields) continue;
    out ??= messages.slice();
    out[i] = { atMs: m.atMs, level: m.level, text: m.text, fields };
  }
  return out ?? messages;
}

/** An operation's text, or nothing when JSON cannot carry one of its fields (a BigInt). */
function jsonOf(op: Operation): string | undefined {
  try {
    return JSON.stringify(op);
  } catch {
    return undefined;
  }
}

/** A delivery round's text (`encodeDeliveryRound`), or nothing when JSON cannot carry it. */
function roundJsonOf(id: string, durationMs: number, facts: DeliveryRoundFacts): string | undefined {
  try {
    return encodeDeliveryRound(id, durationMs, facts);
  } catch {
    return undefined;
  }
}

/** Where batches of operations go: the store itself, or the bus towards the process that owns it. */
export type OperationSink = (batch: Operation[]) => Promise<void>;

/**
 * A sink that takes each batch as one JSON array (`count` operations), for a store that hands it on as text (the
 * log's writer thread). The recorder then encodes each operation as it is recorded, while its objects are new,
 * and holds only that string until the batch leaves: a batch's objects, held ~100 ms and serialised then, cost a
 * notification's main thread several µs more (measured in docs/benchmarks.md, "Operations log: encoded as
 * recorded").
 */
export interface EncodedOperationSink {
  readonly encoded: (json: string, count: number) => Promise<void>;
}

export interface OperationRecorderOptions {
  clock: Clock;
  /** Most operations held in memory waiting for the sink; past it, new ones are dropped and counted. */
  maxBuffered?: number;
  /** Most operations in one batch. */
  maxBatch?: number;
  metrics?: MetricsRegistry;
  /** Off: `record` returns at once and keeps nothing (JUNCTION_LOGS_RECORD=false). */
  enabled?: boolean;
  /**
   * Successful proxy calls recorded one by one (JUNCTION_LOGS_PROXY_SUCCESSES); otherwise they are kept as
   * per-minute totals. Failures always are one by one.
   */
  proxySuccesses?: boolean;
  /** Most per-minute proxy totals (keys) in one minute; past it, calls fold into their integration's total. */
  maxProxyTotals?: number;
  /**
   * Successful notification receipts recorded one by one (JUNCTION_LOGS_NOTIFICATION_RECEIPTS); otherwise they are
   * kept as per-minute totals. Refused ones always are one by one.
   */
  notificationReceipts?: boolean;
  /** Most per-minute receipt totals (keys) in one minute; past it, receipts fold into their integration's total. */
  maxReceiptTotals?: number;
  /** Integrations whose bodies the operator switched on; every other body is dropped. */
  bodies?: ReadonlySet<string>;
  /** Longest wait before a batch smaller than `maxBatch` goes (default 100 ms). */
  flushDelayMs?: number;
}

/**
 * Records operations off the hot path: `record` appends to a bounded in-memory buffer and returns;
 * the buffer goes to the sink in batches, one batch on its way at a time: a full batch at once, a
 * smaller one after `flushDelayMs`. Unlike the platform's Batcher (which sends on the next turn of the
 * event loop, a promise per call), nobody waits for a log line, so the wait makes batches large: a
 * transaction per few operations cost SQLite's full-text index a segment each (measured: a third
 * more CPU per proxied request). And it is bounded: a stalled sink costs dropped operations, never
 * memory or the request's time.
 */
export class OperationRecorder {
  readonly enabled: boolean;
  /** Successful proxy calls are recorded one by one (failures always are). */
  readonly proxySuccesses: boolean;
  /** Successful notification receipts are recorded one by one (refused ones always are). */
  readonly notificationReceipts: boolean;
  private readonly maxBuffered: number;
  private readonly maxBatch: number;
  /** Operations waiting for the sink: objects, or their JSON when the sink takes text (`encoding`). */
  private buffer: (Operation | string)[] = [];
  private sink: OperationSink | EncodedOperationSink | undefined;
  private encoding = false;
  private sending = false;
  private scheduled = false;
  private timer: TimerHandle | undefined;
  private idle: Array<() => void> = [];
  private readonly dropped: Counter | undefined;
  private readonly failed: Counter | undefined;
  private droppedCount = 0;
  /** Successful proxy calls as per-minute totals (unless `proxySuccesses`): `proxyTotals.add` per call. */
  readonly proxyTotals: MinuteTotals;
  /** Successful notification receipts as per-minute totals (unless `notificationReceipts`). */
  readonly receiptTotals: MinuteTotals;

  constructor(private readonly options: OperationRecorderOptions) {
    this.enabled = options.enabled ?? true;
    this.proxySuccesses = options.proxySuccesses ?? false;
    this.notificationReceipts = options.notificationReceipts ?? false;
    this.maxBuffered = Math.max(1, options.maxBuffered ?? 10_000);
    this.maxBatch = Math.max(1, options.maxBatch ?? 500);
    this.dropped = options.metrics?.counter(
      "junction_operations_dropped_total",
      "Operations not recorded: the buffer was full (the store or the bus fell behind)",
    );
    this.failed = options.metrics?.counter(
      "junction_operations_sink_failures_total",
      "Batches of operations the sink refused (they are lost)",
    );
    const overflowed = options.metrics?.counter(
      "junction_operations_proxy_totals_overflow_total",
      "Successful proxy calls folded into their integration's total: the minute held its most totals already",
    );
    const emit = (op: OperationInput) => this.record(op);
    this.proxyTotals = new MinuteTotals(options.clock, emit, PROXY_CALL_TOTALS, {
      enabled: this.enabled,
      overflowed,
      ...(options.maxProxyTotals ? { maxKeys: options.maxProxyTotals } : {}),
    });
    const receiptsOverflowed = options.metrics?.counter(
      "junction_operations_receipt_totals_overflow_total",
      "Notifications received folded into their integration's total: the minute held its most totals already",
    );
    this.receiptTotals = new MinuteTotals(options.clock, emit, NOTIFICATION_RECEIPT_TOTALS, {
      enabled: this.enabled,
      overflowed: receiptsOverflowed,
      ...(options.maxReceiptTotals ? { maxKeys: options.maxReceiptTotals } : {}),
    });
  }

  /** Where batches go from now on (the process sets it once its store or bus is up). */
  attach(sink: OperationSink | EncodedOperationSink): void {
    const encoding = typeof sink !== "function";
    if (encoding !== this.encoding) {
      // What was recorded before (or for another sink) is turned into what this sink takes.
      this.buffer = this.buffer.map((op) =>
        encoding ? JSON.stringify(op) : typeof op === "string" ? operationFromJson(JSON.parse(op)) : op,
      );
      this.encoding = encoding;
    }
    this.sink = sink;
    this.schedule();
  }

  /** Whether the operator switched bodies on for this integration. */
  keepsBodies(integration: string): boolean {
    return this.options.bodies?.has(integration) ?? false;
  }

  /** Records one operation; never throws, never waits. Its arrays are handed over: the caller builds them for it. */
  record(input: OperationInput): void {
    if (!this.admits()) return;
    const op: Operation = {
      id: input.id ?? newId("op", input.startedAtMs),
      kind: input.kind,
      status: input.status,
      startedAtMs: input.startedAtMs,
      durationMs: input.durationMs ?? Math.max(0, this.options.clock.now() - input.startedAtMs),
      environmentId: input.environmentId ?? "",
      integration: input.integration ?? "",
      connection: input.connection ?? "",
      endUser: input.endUser ?? "",
      tags: input.tags ?? NONE,
      title: input.title ?? "",
      messages: input.messages ? redactMessages(input.messages) : NONE,
    };
    if (input.totals) op.totals = input.totals;
    this.hold(this.encoding ? jsonOf(op) : op);
  }

  /**
   * Records one webhook delivery round from its facts. For a sink that takes text they are held as a short JSON
   * array and the log's writer renders the operation; otherwise it is rendered here. Never throws, never waits.
   */
  recordDeliveryRound(facts: DeliveryRoundFacts): void {
    if (!this.admits()) return;
    const id = newId("op", facts.startedAtMs);
    const durationMs = Math.max(0, this.options.clock.now() - facts.startedAtMs);
    this.hold(this.encoding ? roundJsonOf(id, durationMs, facts) : deliveryRoundOperation(id, durationMs, facts));
  }

  /** Whether one more operation may be held: not when recording is off, nor past the bound (dropped, counted). */
  private admits(): boolean {
    if (!this.enabled) return false;
    if (this.buffer.length < this.maxBuffered) return true;
    this.droppedCount++;
    this.dropped?.inc();
    return false;
  }

  /** Holds an operation or its text; one whose text could not be made is lost, counted as a refused batch is. */
  private hold(op: Operation | string | undefined): void {
    if (op === undefined) {
      this.failed?.inc();
      return;
    }
    this.buffer.push(op);
    this.schedule();
  }

  /** Operations dropped since the start (tests; the metric counts them too). */
  get droppedTotal(): number {
    return this.droppedCount;
  }

  /** Resolves once the buffer, with the minute's totals so far, is empty and no batch is on its way (tests, stop). */
  flushed(): Promise<void> {
    this.proxyTotals.flush();
    this.receiptTotals.flush();
    if (this.buffer.length === 0 && !this.sending) return Promise.resolve();
    const done = new Promise<void>((resolve) => this.idle.push(resolve));
    this.schedule(true);
    return done;
  }

  /** Sends at once when a batch is full (or `now`), otherwise once the delay has passed. */
  private schedule(now = false): void {
    if (this.scheduled || this.sending || !this.sink || this.buffer.length === 0) return;
    if (!now && this.buffer.length < this.maxBatch) {
      // Real time, not the injected clock: the wait only gathers a batch (no outcome depends on it),
      // and a test's manual clock must not hold log lines back.
      this.timer ??= systemClock.setTimer(() => {
        this.timer = undefined;
        this.schedule(true);
      }, this.options.flushDelayMs ?? 100);
      return;
    }
    this.timer?.cancel();
    this.timer = undefined;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.send();
    });
  }

  private async send(): Promise<void> {
    const sink = this.sink;
    if (this.sending || !sink || this.buffer.length === 0) return this.settle();
    this.sending = true;
    const batch = this.buffer.length <= this.maxBatch ? this.buffer : this.buffer.slice(0, this.maxBatch);
    this.buffer = batch === this.buffer ? [] : this.buffer.slice(this.maxBatch);
    try {
      if (typeof sink === "function") await sink(batch as Operation[]);
      else await sink.encoded(`[${batch.join(",")}]`, batch.length);
    } catch {
      this.failed?.inc();
    } finally {
      this.sending = false;
    }
    if (this.buffer.length > 0) this.schedule(this.idle.length > 0);
    else this.settle();
  }

  private settle(): void {
    if (this.buffer.length > 0 || this.sending) return;
    const waiting = this.idle;
    this.idle = [];
    for (const resolve of waiting) resolve();
  }
}
