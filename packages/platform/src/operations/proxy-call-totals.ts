import type { Clock, TimerHandle } from "../clock.ts";
import type { Counter } from "../metrics.ts";
import type { CallTotals, OperationInput } from "./operation.ts";

export const MINUTE_MS = 60_000;

/** One key's calls of the current minute. */
interface Tally extends CallTotals {
  method: string;
  status: number;
}

/** Environment → integration → connection → the tallies of its (method, status) pairs (a few: a short scan). */
type Tallies = Map<string, Map<string, Map<string, Tally[]>>>;

const OVERFLOW_TAGS = ["overflow"];

function tally(method: string, status: number, latencyMs: number): Tally {
  return { method, status, count: 1, latencyMinMs: latencyMs, latencyMaxMs: latencyMs, latencySumMs: latencyMs };
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
 * Successful proxy calls as per-minute totals per (environment, integration, connection, method,
 * status): a call is a few map lookups and four number updates (an allocation only for a key's first
 * call of the minute); each minute's totals leave as one operation each, kind `proxy_call`, when the
 * minute ends on the injected clock, when a call of the next minute comes, or on `flush`. A minute holds
 * at most `maxKeys` totals: past them, a call is folded into its integration's overflow total
 * (connection and method `*`, tag `overflow`) and counted.
 */
export class ProxyCallTotals {
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
    private readonly options: { enabled: boolean; maxKeys?: number; overflowed?: Counter },
  ) {
    this.maxKeys = options.maxKeys ?? 10_000;
  }

  /** Counts one successful call answered at `nowMs` after `latencyMs`. */
  add(
    environmentId: string,
    integration: string,
    connection: string,
    method: string,
    status: number,
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
        if (t.status === status && t.method === method) {
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
    if (list === undefined) byConnection.set(connection, [tally(method, status, latencyMs)]);
    else list.push(tally(method, status, latencyMs));
  }

  /** Emits the current totals now (shutdown, tests); the next call opens a period from this instant. */
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
    // Integrations with a successful call are the configured ones; the bound holds even if they were not.
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
    for (const [environmentId, byIntegration] of this.tallies) {
      for (const [integration, byConnection] of byIntegration) {
        for (const [connection, list] of byConnection) {
          for (const t of list) {
            const title = `${t.method} ×${t.count} → ${t.status}`;
            this.emit(totalOperation(period, environmentId, integration, connection, title, t));
          }
        }
      }
    }
    for (const [key, t] of this.overflow) {
      const [environmentId, integration] = key.split("\u0000") as [string, string];
      const title = `* ×${t.count} → under 400 (past ${this.maxKeys} totals this minute)`;
      this.emit({ ...totalOperation(period, environmentId, integration, "*", title, t), tags: OVERFLOW_TAGS });
    }
    this.tallies = new Map();
    this.overflow = new Map();
    this.keys = 0;
    this.lastFlushMs = endMs;
    this.windowEndMs = 0;
  }
}

function totalOperation(
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
  return { kind: "proxy_call", status: "success", ...period, environmentId, integration, connection, title, totals };
}

function newMap<V>(): Map<string, V> {
  return new Map();
}
