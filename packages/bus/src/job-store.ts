/**
 * Where the in-process bus keeps its durable queues. A job's `availableAt` is both its schedule and
 * its lease: claiming a job pushes it forward by the ack wait, so a job whose handler neither acks
 * nor naks in time simply becomes available again. Every method is synchronous so that a claim and
 * the delivery that follows it cannot interleave with another claim.
 */
export interface StoredJob {
  id: number;
  queue: string;
  data: Uint8Array;
  msgId: string | undefined;
  /** Deliveries so far, this one included once claimed. */
  deliveries: number;
}

/** What `JobStore.insert` did: nothing for a duplicate; with a lease, the job as a claim would return it. */
export interface InsertResult {
  duplicate: boolean;
  /** The new job's id (absent for a duplicate). */
  id?: number;
  claimed?: StoredJob;
}

export interface JobStore {
  /**
   * Adds a job unless `msgId` was seen on this queue within the de-duplication window. With `leaseMs`
   * the job is added already claimed, as `claim` would leave it (one delivery counted, leased until
   * `now + leaseMs`), and returned as `claimed`: for a consumer with a free slot, which then needs no
   * claim of its own.
   */
  insert(queue: string, data: Uint8Array, msgId: string | undefined, now: number, leaseMs?: number): InsertResult;
  /** Takes the oldest job available at `now`, counting a delivery and leasing it until `now + leaseMs`. */
  claim(queue: string, now: number, leaseMs: number): StoredJob | undefined;
  /** When the next job of the queue (leased or waiting) becomes available, if it has any. */
  nextAvailableAt(queue: string): number | undefined;
  /** Makes a job available at `availableAt`, unless it was delivered again since `deliveries`. */
  release(id: number, deliveries: number, availableAt: number): void;
  /** Forgets a job (acked, terminated or out of deliveries). */
  remove(id: number): void;
}
