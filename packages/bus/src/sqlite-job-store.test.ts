import { describe, expect, test } from "bun:test";
import { migrate, openDatabase } from "@junction/platform";
import { MIGRATIONS, SqliteJobStore } from "./sqlite-job-store.ts";

const data = (s: string) => new TextEncoder().encode(s);
const text = (b: Uint8Array) => new TextDecoder().decode(b);
const WINDOW = 60_000;

function openStore() {
  const db = openDatabase(":memory:");
  return { db, store: new SqliteJobStore(db, WINDOW) };
}

describe("SqliteJobStore", () => {
  test("an enqueue without a de-duplication id runs no savepoint; one with an id runs one", () => {
    const db = openDatabase(":memory:");
    migrate(db, "bus", MIGRATIONS);
    let transactions = 0;
    const make = db.transaction.bind(db);
    // Counts every run of a transaction function the store makes (a savepoint inside the group commit's).
    db.transaction = ((fn: (...args: never[]) => unknown) => {
      const made = make(fn);
      return (...args: never[]) => {
        transactions++;
        return made(...args);
      };
    }) as typeof db.transaction;
    const store = new SqliteJobStore(db, WINDOW);
    store.insert("q", data("plain"), undefined, 1_000, 500);
    expect(transactions).toBe(0);
    expect(store.insert("q", data("keyed"), "m-1", 1_000).duplicate).toBe(false);
    expect(store.insert("q", data("keyed again"), "m-1", 1_001).duplicate).toBe(true);
    expect(transactions).toBe(2);
    expect(store.claimMany("q", 2_000, 500, 5).map((j) => text(j.data))).toEqual(["plain", "keyed"]);
    db.close();
  });

  test("claims the job available longest first, reading the index in order rather than sorting the backlog", () => {
    const { db, store } = openStore();
    store.insert("q", data("first"), undefined, 1_000);
    store.insert("q", data("second"), undefined, 1_000);
    const [first, second] = store.claimMany("q", 1_000, 500, 2);
    // Nakked back in the other order: the one available longest comes first, whatever its id.
    store.release(second?.id ?? 0, 1, 900);
    store.release(first?.id ?? 0, 1, 950);
    store.insert("q", data("third"), undefined, 1_100);
    const order = [1, 2, 3].map(() => text(store.claim("q", 1_200, 500)?.data ?? new Uint8Array()));
    expect(order).toEqual(["second", "first", "third"]);

    const plan = db
      .query<{ detail: string }, [string, number]>(
        "EXPLAIN QUERY PLAN SELECT id FROM bus_jobs WHERE queue = ? AND available_at <= ? ORDER BY available_at, id LIMIT 1",
      )
      .all("q", 0)
      .map((r) => r.detail);
    expect(plan.join("\n")).toContain("USING COVERING INDEX bus_jobs_queue_available");
    expect(plan.join("\n")).not.toContain("TEMP B-TREE");
    db.close();
  });

  test("claims several jobs in one write, up to the limit, each leased and counted as delivered", () => {
    const { db, store } = openStore();
    for (const s of ["a", "b", "c", "d"]) store.insert("q", data(s), undefined, 1_000);
    store.insert("other", data("x"), undefined, 1_000);
    const taken = store.claimMany("q", 1_000, 500, 3);
    expect(taken.map((j) => [text(j.data), j.deliveries])).toEqual([
      ["a", 1],
      ["b", 1],
      ["c", 1],
    ]);
    expect(store.claimMany("q", 1_000, 500, 3).map((j) => text(j.data))).toEqual(["d"]);
    expect(store.claimMany("q", 1_499, 500, 3)).toEqual([]);
    // The leases run out together: all four are available again, delivered a second time.
    expect(store.claimMany("q", 1_500, 500, 10).map((j) => [text(j.data), j.deliveries])).toEqual([
      ["a", 2],
      ["b", 2],
      ["c", 2],
      ["d", 2],
    ]);
    db.close();
  });

  test("a message id is a duplicate within the window and accepted again once it has passed", () => {
    const { db, store } = openStore();
    expect(store.insert("q", data("1"), "m", 0)).toMatchObject({ duplicate: false });
    expect(store.insert("q", data("2"), "m", WINDOW - 1)).toEqual({ duplicate: true });
    expect(store.insert("other", data("3"), "m", WINDOW - 1)).toMatchObject({ duplicate: false });
    expect(store.insert("q", data("4"), "m", WINDOW)).toMatchObject({ duplicate: false });
    expect(store.insert("q", data("5"), "m", WINDOW + 1)).toEqual({ duplicate: true });
    expect(store.claimMany("q", WINDOW, 1_000, 10).map((j) => text(j.data))).toEqual(["1", "4"]);
    db.close();
  });

  test("message ids remembered before the schema upgrade still make duplicates after it", () => {
    const db = openDatabase(":memory:");
    migrate(db, "bus", MIGRATIONS.slice(0, 1));
    db.query("INSERT INTO bus_msg_ids (queue, msg_id, expires_at) VALUES ('q', 'm', 5000)").run();
    const store = new SqliteJobStore(db, WINDOW);
    expect(store.insert("q", data("again"), "m", 4_000)).toEqual({ duplicate: true });
    expect(store.insert("q", data("later"), "m", 5_000)).toMatchObject({ duplicate: false });
    db.close();
  });
});
