import { describe, expect, test } from "bun:test";
import { openDatabase } from "@junction/platform";
import { GroupCommit, type Transactor } from "./group-commit.ts";

/** A transactor over a plain list, recording each transaction's writes; `failCommit` makes the next commit throw. */
function recordingTransactor() {
  const transactions: string[][] = [];
  let current: string[] | undefined;
  const state = { failCommit: false, rolledBack: false };
  const tx: Transactor = {
    atomically(fn) {
      current = [];
      try {
        fn();
        if (state.failCommit) throw new Error("disk I/O error");
        transactions.push(current);
      } finally {
        current = undefined;
      }
    },
    inTransaction: () => !state.rolledBack,
  };
  const write = (name: string) => () => {
    current?.push(name);
    return name.toUpperCase();
  };
  return { tx, transactions, state, write };
}

describe("GroupCommit", () => {
  test("writes asked for in one turn share one transaction, and each resolves with its result after it", async () => {
    const { tx, transactions, write } = recordingTransactor();
    const commit = new GroupCommit(tx);
    const settled: string[] = [];
    const writes = ["a", "b", "c"].map((n) => commit.add(write(n)).then((v) => settled.push(v)));
    await Promise.resolve();
    expect(transactions).toEqual([]);
    expect(settled).toEqual([]);
    await Promise.all(writes);
    expect(transactions).toEqual([["a", "b", "c"]]);
    expect(settled).toEqual(["A", "B", "C"]);
    await commit.add(write("d"));
    expect(transactions).toEqual([["a", "b", "c"], ["d"]]);
  });

  test("a write that throws is rejected alone; the others of its batch commit", async () => {
    const { tx, transactions, write } = recordingTransactor();
    const commit = new GroupCommit(tx);
    const results = await Promise.allSettled([
      commit.add(write("a")),
      commit.add(() => {
        throw new Error("constraint failed");
      }),
      commit.add(write("c")),
    ]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(transactions).toEqual([["a", "c"]]);
  });

  test("a commit that fails rejects every write of the batch", async () => {
    const { tx, state, write } = recordingTransactor();
    const commit = new GroupCommit(tx);
    state.failCommit = true;
    const results = await Promise.allSettled([commit.add(write("a")), commit.add(write("b"))]);
    expect(results.map((r) => (r.status === "rejected" ? String(r.reason) : "ok"))).toEqual([
      "Error: disk I/O error",
      "Error: disk I/O error",
    ]);
  });

  test("an error that rolled the whole transaction back stops the batch: the later writes never run", async () => {
    const { tx, state, transactions } = recordingTransactor();
    const commit = new GroupCommit(tx);
    const ran: string[] = [];
    const results = await Promise.allSettled([
      commit.add(() => ran.push("a")),
      commit.add(() => {
        state.rolledBack = true;
        throw new Error("database or disk is full");
      }),
      commit.add(() => ran.push("c")),
    ]);
    expect(ran).toEqual(["a"]);
    expect(results.every((r) => r.status === "rejected")).toBe(true);
    expect(transactions).toEqual([]);
  });

  test("flush() commits what is pending at once", async () => {
    const { tx, transactions, write } = recordingTransactor();
    const commit = new GroupCommit(tx);
    const pending = commit.add(write("a"));
    commit.flush();
    expect(transactions).toEqual([["a"]]);
    expect(await pending).toBe("A");
  });

  test("without a transactor (the in-memory store) a write runs at once", async () => {
    const commit = new GroupCommit(undefined);
    let ran = false;
    const pending = commit.add(() => {
      ran = true;
      return 1;
    });
    expect(ran).toBe(true);
    expect(await pending).toBe(1);
    await expect(
      commit.add(() => {
        throw new Error("no");
      }),
    ).rejects.toThrow("no");
  });

  test("stores on one SQLite connection share its group commit, so a turn's writes are one transaction", async () => {
    const db = openDatabase(":memory:");
    db.exec("CREATE TABLE t (v TEXT)");
    const first = GroupCommit.forDatabase(db);
    expect(GroupCommit.forDatabase(db)).toBe(first);
    const insert = (v: string) => () => {
      expect(db.inTransaction).toBe(true);
      return db.query("INSERT INTO t (v) VALUES (?)").run(v).changes;
    };
    expect(await Promise.all([first.add(insert("a")), GroupCommit.forDatabase(db).add(insert("b"))])).toEqual([1, 1]);
    expect(db.query<{ v: string }, []>("SELECT v FROM t ORDER BY v").all()).toEqual([{ v: "a" }, { v: "b" }]);
    db.close();
  });
});
