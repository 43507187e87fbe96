/**
 * Every bun:sqlite statement the process runs, reported to `onCall` with its SQL (whitespace folded)
 * and when it started (Bun.nanoseconds()) as it ends. Installed on the Database prototype, so it sees
 * the statements prepared after it is installed: install it before the stores open. Used by the
 * notification statement count (test/e2e/notification-statements.test.ts) and the benchmark's SQL
 * profile (bench/support/sql-profile.ts).
 */
import { Database } from "bun:sqlite";

export function instrumentStatements(onCall: (sql: string, startedNs: number) => void): void {
  const wrapped = new WeakSet<object>();
  // A statement from `query` is cached and returned again: it is wrapped once.
  const wrap = <S extends object>(statement: S, sql: string): S => {
    if (wrapped.has(statement)) return statement;
    wrapped.add(statement);
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
          onCall(text, started);
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
      return wrap(original.call(this, sql, ...rest), sql);
    };
  }
}

/** Counts of statements by SQL since the last `reset`. */
export function countStatements(): { counts: Map<string, number>; reset(): void } {
  const counts = new Map<string, number>();
  instrumentStatements((sql) => counts.set(sql, (counts.get(sql) ?? 0) + 1));
  return { counts, reset: () => counts.clear() };
}
