import { heapStats } from "bun:jsc";

/**
 * The heap cells a batch of requests allocates, per request and by type (bun:jsc's count of live cells before
 * and after a batch, after a full collection, the batch small enough that no collection runs inside it). Exact
 * counts, which the machine's load does not move: what a change allocates more or less, and of what type
 * (a JSLexicalEnvironment is a closure's scope, or an async function's frame). The harness's own cells (the
 * Request, the loop's async worker) are in every target's count alike.
 */
export async function cellsPerRequest(runBatch: (n: number) => Promise<unknown>, batch = 200, batches = 20) {
  const totals = new Map<string, number>();
  for (let i = 0; i < batches; i++) {
    Bun.gc(true);
    const before = heapStats().objectTypeCounts;
    await runBatch(batch);
    for (const [type, n] of Object.entries(heapStats().objectTypeCounts)) {
      totals.set(type, (totals.get(type) ?? 0) + n - (before[type] ?? 0));
    }
  }
  // Structures: heapStats makes ~130 of its own per call, whatever ran between.
  totals.delete("Structure");
  const rows = [...totals]
    .map(([type, n]) => [type, n / (batch * batches)] as const)
    .filter(([, n]) => Math.abs(n) >= 0.05)
    .sort((a, b) => b[1] - a[1]);
  return { rows, total: rows.reduce((sum, [, n]) => sum + n, 0) };
}
