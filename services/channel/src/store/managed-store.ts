import type { ManagedOutcome, ManagedSlot, ManagedSlotKey } from "./managed-records.ts";

/**
 * The schedule of managed channels, part of the channel registry. Every store implements it the
 * same way (store.conformance.ts); times come in as arguments, as for the registry.
 */
export interface ManagedSlotStore {
  /**
   * Schedules the slot's next action at `dueAt` for `reason` (inserting the slot when new): clears the
   * failure count, bumps the generation, keeps the channel and any claim in progress.
   */
  scheduleManaged(key: ManagedSlotKey, reason: string, dueAt: number, at: number): Promise<ManagedSlot>;
  /**
   * Cancels the schedule of one connection's slot, or of every slot of the integration when
   * `connectionId` is undefined (their channels are being stopped). Returns how many were cancelled.
   */
  cancelManaged(
    environmentId: string,
    providerConfigKey: string,
    connectionId: string | undefined,
    at: number,
  ): Promise<number>;
  /**
   * Claims up to `limit` slots due at `now` that no live claim holds, for `owner` until `claimUntil`,
   * earliest due first; of several processes, one gets each slot.
   */
  claimDueManaged(
    environmentId: string,
    now: number,
    owner: string,
    claimUntil: number,
    limit: number,
  ): Promise<ManagedSlot[]>;
  /**
   * Records a run's outcome and releases the claim, only when `owner` still holds it. The next due
   * time and reason apply only when the generation is still `generation` (else a newer schedule or a
   * cancel stands). Returns the slot as written, or null when `owner` did not hold it.
   */
  finishManaged(
    key: ManagedSlotKey,
    owner: string,
    generation: number,
    outcome: ManagedOutcome,
    at: number,
  ): Promise<ManagedSlot | null>;
  /** The slot of one connection, or null. */
  getManaged(key: ManagedSlotKey): Promise<ManagedSlot | null>;
  /** The earliest due time of any scheduled slot, or null when none is scheduled. */
  nextManagedDue(environmentId: string): Promise<number | null>;
}
