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
import { instrumentStatements } from "../../test/support/statement-counter.ts";

const out = process.env.JUNCTION_BENCH_SQL_PROFILE;
if (out) {
  const totals = new Map<string, { calls: number; ns: number }>();
  const count = (sql: string, started: number) => {
    const entry = totals.get(sql) ?? { calls: 0, ns: 0 };
    entry.calls++;
    entry.ns += Bun.nanoseconds() - started;
    totals.set(sql, entry);
  };
  instrumentStatements(count);
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
