/** Polls `predicate` until it holds, failing with `what` once `timeoutMs` passes. */
export async function waitFor(predicate: () => boolean, timeoutMs = 5_000, what = "condition"): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await Bun.sleep(5);
  }
}
