import type { Clock, TimerHandle } from "../clock.ts";
import type { Counter } from "../metrics.ts";
import type { CallTotals, OperationInput, OperationKind } from "./operation.ts";

export const MINUTE_MS = 60_000;

/** One key's successes of the current minute. */
interface Tally extends CallTotals {
  label: string;
  code: number;
}

/** Environment → integration → connection → the tallies of its (label, code) pairs (a few: a short scan). */
type Tallies = Map<string, Map<string, Map<string, Tally[]>>>;

const OVERFLOW_TAGS = ["overflow"];

/** What one kind's totals are called: their operation's kind and titles. */
export interface TotalsKind {
  kind: OperationKind;
  /** A total's title from its key's label and code and its count (`GET ×1000 → 200`). */
  title: (integration: string, label: string, code: number, count: number) => string;
  /** The title of an integration's overflow total (the successes past the minute's bound of keys). */
  overflowTitle: (integration: string, count: number, maxKeys: number) => string;
  /** The overflow total's connection (`*`: any; "" for a kind that has none). */
  overflowConnection: string;
}

function tally(label: string, code: number, latencyMs: number): Tally {
  return { label, code, count: 1, latencyMinMs: latencyMs, latencyMaxMs: latencyMs, latencySumMs: latencyMs };
}

function add(t: Tally, latencyMs: number): void {
  t.count++;
  t.latencySumMs += latencyMs;
  if (latencyMs < t.latencyMinMs) t.latencyMinMs = latencyMs;
  else if (latencyMs > t.latencyMaxMs) t.latencyMaxMs = latencyMs;
}

function child<V>(map: Map<string, V>, key: string, make: () => V): V {
  let v = map.get(key);
  if (v === undefined) {
    v = make();
    map.set(key, v);
  }
  return v;
}

/**
 * Successful operations of one kind as per-minute totals per (environment, integration, connection, label,
 * code): the proxy's calls by method and status, the notifications received by outcome. A success is a few
 * map lookups and four number updates (an allocation only for a key's first success of the minute); each
 * minute's totals leave as one operation each when the minute ends on the injected clock, when a success of
 * the next minute comes, or on `flush`. A minute holds at most `maxKeys` totals: past them, a success is
 * folded into its integration's overflow total (label `*`, tag `overflow`) and counted.
 */
export class MinuteTotals {
  private tallies: Tallies = new Map();
  private overflow = new Map<string, Tally>();
  private keys = 0;
  private windowStartMs = 0;
  /** 0 while nothing is tallied. */
  private windowEndMs = 0;
  private lastFlushMs = 0;
  private timer: TimerHandle | undefined;
  private readonly maxKeys: number;

  constructor(
    private readonly clock: Clock,
    private readonly emit: (op: OperationInput) => void,
    private readonly shape: TotalsKind,
    private readonly options: { enabled: boolean; maxKeys?: number; overflowed?: Counter },
  ) {
    this.maxKeys = options.maxKeys ?? 10_000;
  }

  /** Counts one success ended at `nowMs` after `latencyMs`. */
  add(
    environmentId: string,
    integration: string,
    connection: string,
    label: string,
    code: number,
    latencyMs: number,
    nowMs: number,
  ): void {
    if (!this.options.enabled) return;
    if (nowMs >= this.windowEndMs) this.open(nowMs);
    const byIntegration = child(this.tallies, environmentId, newMap<Map<string, Tally[]>>);
    const byConnection = child(byIntegration, integration, newMap<Tally[]>);
    const list = byConnection.get(connection);
    if (list !== undefined) {
      for (let i = 0; i < list.length; i++) {
        const t = list[i] as Tally;
        if (t.code === code && t.label === label) {
          add(t, latencyMs);
          return;
        }
      }
    }
    if (this.keys >= this.maxKeys) {
      this.fold(environmentId, integration, latencyMs);
      return;
    }
    this.keys++;
    if (list === undefined) byConnection.set(connection, [tally(label, code, latencyMs)]);
    else list.push(tally(label, code, latencyMs));
  }

  /** Emits the current totals now (shutdown, tests); the next success opens a period from this instant. */
  flush(): void {
    if (this.windowEndMs !== 0) this.close(Math.min(this.clock.now(), this.windowEndMs));
  }

  /** Keys in the current minute (tests). */
  get size(): number {
    return this.keys + this.overflow.size;
  }

  private fold(environmentId: string, integration: string, latencyMs: number): void {
    this.options.overflowed?.inc();
    let key = `${environmentId}\u0000${integration}`;
    let t = this.overflow.get(key);
    // Integrations with a success are the configured ones; the bound holds even if they were not.
    if (t === undefined && this.overflow.size >= this.maxKeys) {
      key = "*\u0000*";
      t = this.overflow.get(key);
    }
    if (t !== undefined) add(t, latencyMs);
    else this.overflow.set(key, tally("*", 0, latencyMs));
  }

  private open(nowMs: number): void {
    if (this.windowEndMs !== 0) this.close(this.windowEndMs);
    const minuteStart = nowMs - (nowMs % MINUTE_MS);
    this.windowStartMs = Math.max(minuteStart, this.lastFlushMs);
    this.windowEndMs = minuteStart + MINUTE_MS;
    this.timer = this.clock.setTimer(() => {
      this.timer = undefined;
      if (this.windowEndMs !== 0) this.close(this.windowEndMs);
    }, this.windowEndMs - nowMs);
  }

  private close(endMs: number): void {
    this.timer?.cancel();
    this.timer = undefined;
    const period = { startedAtMs: this.windowStartMs, durationMs: Math.max(0, endMs - this.windowStartMs) };
    const { kind, title, overflowTitle, overflowConnection } = this.shape;
    for (const [environmentId, byIntegration] of this.tallies) {
      for (const [integration, byConnection] of byIntegration) {
        for (const [connection, list] of byConnection) {
          for (const t of list) {
            const name = title(integration, t.label, t.code, t.count);
            this.emit(totalOperation(kind, period, environmentId, integration, connection, name, t));
          }
        }
      }
    }
    for (const [key, t] of this.overflow) {
      const [environmentId, integration] = key.split("\u0000") as [string, string];
      const name = overflowTitle(integration, t.count, this.maxKeys);
      const op = totalOperation(kind, period, environmentId, integration, overflowConnection, name, t);
      this.emit({ ...op, tags: OVERFLOW_TAGS });
    }
    this.tallies = new Map();
    this.overflow = new Map();
    this.keys = 0;
    this.lastFlushMs = endMs;
    this.windowEndMs = 0;
  }
}

function totalOperation(
  kind: OperationKind,
  period: { startedAtMs: number; durationMs: number },
  environmentId: string,
  integration: string,
  connection: string,
  title: string,
  t: Tally,
): OperationInput {
  const totals = {
    count: t.count,
    latencyMinMs: t.latencyMinMs,
    latencyMaxMs: t.latencyMaxMs,
    latencySumMs: t.latencySumMs,
  };
  return { kind, status: "success", ...period, environmentId, integration, connection, title, totals };
}

function newMap<V>(): Map<string, V> {
  return new Map();
}
