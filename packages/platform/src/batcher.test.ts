import { describe, expect, test } from "bun:test";
import { Batcher } from "./batcher.ts";

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A batch function whose batches are answered by the test, one at a time. */
function controlled() {
  const batches: Array<{ inputs: number[]; answer: (outputs?: string[]) => void; fail: (err: Error) => void }> = [];
  const run = (inputs: number[]) =>
    new Promise<string[]>((resolve, reject) => {
      batches.push({
        inputs,
        answer: (outputs) => resolve(outputs ?? inputs.map((i) => `r${i}`)),
        fail: reject,
      });
    });
  return { batches, run };
}

describe("Batcher", () => {
  test("calls made in one turn go out as one batch, each getting its own result in order", async () => {
    const { batches, run } = controlled();
    const batcher = new Batcher(run);
    const results = [1, 2, 3].map((i) => batcher.call(i));
    expect(batches).toHaveLength(0);
    await nextTurn();
    expect(batches.map((b) => b.inputs)).toEqual([[1, 2, 3]]);
    batches[0]?.answer();
    expect(await Promise.all(results)).toEqual(["r1", "r2", "r3"]);
  });

  test("calls made while maxInFlight batches are out wait for one to come back, then go together", async () => {
    const { batches, run } = controlled();
    const batcher = new Batcher(run, { maxInFlight: 1 });
    const first = batcher.call(1);
    await nextTurn();
    const later = [2, 3, 4].map((i) => batcher.call(i));
    await nextTurn();
    await nextTurn();
    expect(batches.map((b) => b.inputs)).toEqual([[1]]);
    batches[0]?.answer();
    expect(await first).toBe("r1");
    await nextTurn();
    expect(batches.map((b) => b.inputs)).toEqual([[1], [2, 3, 4]]);
    batches[1]?.answer();
    expect(await Promise.all(later)).toEqual(["r2", "r3", "r4"]);
  });

  test("a second batch goes out while the first is on its way when maxInFlight allows", async () => {
    const { batches, run } = controlled();
    const batcher = new Batcher(run, { maxInFlight: 2 });
    const a = batcher.call(1);
    await nextTurn();
    const b = batcher.call(2);
    await nextTurn();
    expect(batches.map((x) => x.inputs)).toEqual([[1], [2]]);
    batches[1]?.answer();
    batches[0]?.answer();
    expect(await Promise.all([a, b])).toEqual(["r1", "r2"]);
  });

  test("no batch is larger than maxBatch", async () => {
    const { batches, run } = controlled();
    const batcher = new Batcher(run, { maxBatch: 2, maxInFlight: 3 });
    const results = [1, 2, 3, 4, 5].map((i) => batcher.call(i));
    await nextTurn();
    expect(batches.map((b) => b.inputs)).toEqual([[1, 2], [3, 4], [5]]);
    for (const b of batches) b.answer();
    expect(await Promise.all(results)).toEqual(["r1", "r2", "r3", "r4", "r5"]);
  });

  test("a failed batch rejects every call in it, and the next batch still goes out", async () => {
    const { batches, run } = controlled();
    const batcher = new Batcher(run, { maxInFlight: 1 });
    const failed = [1, 2].map((i) => batcher.call(i).catch((err: Error) => err.message));
    await nextTurn();
    const after = batcher.call(3);
    batches[0]?.fail(new Error("service unavailable"));
    expect(await Promise.all(failed)).toEqual(["service unavailable", "service unavailable"]);
    await nextTurn();
    expect(batches.map((b) => b.inputs)).toEqual([[1, 2], [3]]);
    batches[1]?.answer();
    expect(await after).toBe("r3");
  });

  test("an answer with the wrong number of results rejects the whole batch", async () => {
    const { batches, run } = controlled();
    const batcher = new Batcher(run);
    const results = [1, 2].map((i) => batcher.call(i).catch((err: Error) => err.message));
    await nextTurn();
    batches[0]?.answer(["only one"]);
    expect(await Promise.all(results)).toEqual([
      "a batch of 2 was answered with 1 results",
      "a batch of 2 was answered with 1 results",
    ]);
  });
});
