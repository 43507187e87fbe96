/**
 * A diagnostic for the notifications benchmark (BENCH_SQL_PROFILE=1), preloaded into Junction with
 * `bun --preload`: times every bun:sqlite statement the process runs and, when it exits, writes the
 * totals per statement (calls, nanoseconds) as JSON to the file named by JUNCTION_BENCH_SQL_PROFILE.
 * Statements inside `db.transaction` are counted one by one; each outermost transaction is also timed
 * whole (its statements, BEGIN and COMMIT, which writes the pages it changed to the WAL) under the key
 * `[transaction]`. Not part of Junction: without the variable it does nothing.
 */
import { Database } from "bun:sqlite";
import { writeFileSync } from "node:fs";

const out = process.env.JUNCTION_BENCH_SQL_PROFILE;
if (out) {
  const totals = new Map<string, { calls: number; ns: number }>();
  const timed = new WeakSet<object>();
  const count = (sql: string, started: number) => {
    const entry = totals.get(sql) ?? { calls: 0, ns: 0 };
    entry.calls++;
    entry.ns += Bun.nanoseconds() - started;
    totals.set(sql, entry);
  };
  // A statement from `query` is cached and returned again: it is wrapped once.
  const time = <S extends object>(statement: S, sql: string): S => {
    if (timed.has(statement)) return statement;
    timed.add(statement);
    const text = sql.replace(/\s+/g, " ").trim();
    const methods = statement as unknown as Record<string, (...args: unknown[]) => unknown>;
    for (const name of ["run", "get", "all", "values"]) {
      const original = methods[name];
      if (typeof original !== "function") continue;
      methods[name] = function (this: unknown, ...args: unknown[]) {
        const started = Bun.nanoseconds();
        try {
          return original.apply(this, args);
        } finally {
          count(text, started);
        }
      };
    }
    return statement;
  };
  const proto = Database.prototype as unknown as Record<
    string,
    (this: Database, sql: string, ...rest: unknown[]) => object
  >;
  for (const name of ["query", "prepare"]) {
    const original = proto[name] as (this: Database, sql: string, ...rest: unknown[]) => object;
    proto[name] = function (sql, ...rest) {
      return time(original.call(this, sql, ...rest), sql);
    };
  }
  // The outermost transactions, timed whole: the difference to their statements is BEGIN + COMMIT.
  const originalTransaction = Database.prototype.transaction;
  Database.prototype.transaction = function (this: Database, fn: (...args: never[]) => unknown) {
    const db = this;
    const made = originalTransaction.call(this, fn) as unknown as Record<string, (...args: unknown[]) => unknown>;
    const timedCall = (call: (...args: unknown[]) => unknown) =>
      function (this: unknown, ...args: unknown[]) {
        if (db.inTransaction) return call.apply(this, args);
        const started = Bun.nanoseconds();
        try {
          return call.apply(this, args);
        } finally {
          count("[transaction]", started);
        }
      };
    const wrapped = timedCall(made as unknown as (...args: unknown[]) => unknown) as unknown as Record<string, unknown>;
    // deferred/immediate/exclusive are non-enumerable properties of the made function.
    for (const kind of ["deferred", "immediate", "exclusive"]) wrapped[kind] = timedCall(made[kind] as never);
    return wrapped as unknown as ReturnType<typeof originalTransaction>;
  } as typeof originalTransaction;
  process.on("exit", () => {
    writeFileSync(out, JSON.stringify(Object.fromEntries(totals)));
  });
}
