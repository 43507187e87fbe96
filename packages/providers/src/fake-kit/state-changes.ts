/** Lets tests wait on a condition over fake state, re-checked whenever that state changes. */
export class StateChanges {
  private readonly waiters = new Set<() => void>();

  /** Call after every change that a waiter might be watching. */
  changed(): void {
    for (const check of [...this.waiters]) check();
  }

  /** Resolves once `condition()` holds; rejects with `describe()` after `timeoutMs` of real time. */
  waitUntil(condition: () => boolean, timeoutMs: number, describe: () => string): Promise<void> {
    if (condition()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const check = () => {
        if (!condition()) return;
        cleanup();
        resolve();
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`fake-upstream: timed out after ${timeoutMs}ms: ${describe()}`));
      }, timeoutMs);
      const cleanup = () => {
        clearTimeout(timer);
        this.waiters.delete(check);
      };
      this.waiters.add(check);
    });
  }
}
