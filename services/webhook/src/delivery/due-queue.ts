interface Entry {
  id: string;
  at: number;
}

/**
 * Message ids by due time: a binary min-heap with lazy deletion (an id's current time is in the
 * map; heap entries that disagree are stale and skipped), so that taking the earliest of a large
 * backlog stays logarithmic.
 */
export class DueQueue {
  private readonly heap: Entry[] = [];
  private readonly due = new Map<string, number>();

  get size(): number {
    return this.due.size;
  }

  has(id: string): boolean {
    return this.due.has(id);
  }

  /** Schedules `id` at `at`, or keeps its current time when that is earlier. */
  offer(id: string, at: number): void {
    const current = this.due.get(id);
    if (current !== undefined && current <= at) return;
    this.due.set(id, at);
    this.push({ id, at });
  }

  /** The earliest due time, or undefined when empty. */
  earliest(): number | undefined {
    this.dropStale();
    return this.heap[0]?.at;
  }

  /** Removes and returns the earliest id due at `now`, or undefined when none is. */
  takeDue(now: number): string | undefined {
    this.dropStale();
    const top = this.heap[0];
    if (!top || top.at > now) return undefined;
    this.pop();
    this.due.delete(top.id);
    return top.id;
  }

  private dropStale(): void {
    for (let top = this.heap[0]; top && this.due.get(top.id) !== top.at; top = this.heap[0]) this.pop();
  }

  private push(entry: Entry): void {
    const h = this.heap;
    h.push(entry);
    let i = h.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if ((h[parent] as Entry).at <= entry.at) break;
      h[i] = h[parent] as Entry;
      i = parent;
    }
    h[i] = entry;
  }

  private pop(): void {
    const h = this.heap;
    const last = h.pop() as Entry;
    if (h.length === 0) return;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= h.length) break;
      const right = left + 1;
      const child = right < h.length && (h[right] as Entry).at < (h[left] as Entry).at ? right : left;
      if ((h[child] as Entry).at >= last.at) break;
      h[i] = h[child] as Entry;
      i = child;
    }
    h[i] = last;
  }
}
