/**
 * A diagnostic for the notifications benchmark (BENCH_SQL_PROFILE=1), preloaded into Junction with
 * `bun --preload`: times every bun:sqlite statement the process runs and, when it exits, writes the
 * totals per statement (calls, nanoseconds) as JSON to the file named by JUNCTION_BENCH_SQL_PROFILE.
 * Statements inside `db.transaction` are counted one by one; BEGIN and COMMIT are not. Not part of
 * Junction: without the variable it does nothing.
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
  process.on("exit", () => {
    writeFileSync(out, JSON.stringify(Object.fromEntries(totals)));
  });
}
