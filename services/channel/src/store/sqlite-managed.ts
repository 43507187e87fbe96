import type { Database, Statement } from "bun:sqlite";
import type { ManagedOutcome, ManagedSlot, ManagedSlotKey } from "./managed-records.ts";
import { STOPPED_REASON } from "./managed-records.ts";
import type { ManagedSlotStore } from "./managed-store.ts";

type Params = Record<string, string | number | null>;

/** A row of `managed_slots`. */
interface SlotRow {
  environment_id: string;
  provider_config_key: string;
  connection_id: string;
  channel_id: string | null;
  stale_channel_id: string | null;
  due_at: number | null;
  reason: string;
  attempts: number;
  last_error: string | null;
  generation: number;
  claimed_by: string | null;
  claimed_until: number | null;
  updated_at: number;
}

const KEY =
  "environment_id = $environment_id AND provider_config_key = $provider_config_key AND connection_id = $connection_id";

/** The managed channels' schedule on SQLite (the `managed_slots` table of the channel registry's file). */
export class SqliteManagedSlots implements ManagedSlotStore {
  private readonly q: ReturnType<typeof prepare>;

  constructor(db: Database) {
    this.q = prepare(db);
  }

  async scheduleManaged(key: ManagedSlotKey, reason: string, dueAt: number, at: number): Promise<ManagedSlot> {
    return fromRow(this.q.schedule.get({ ...keyParams(key), reason, due_at: dueAt, at }) as SlotRow);
  }

  async cancelManaged(
    environmentId: string,
    providerConfigKey: string,
    connectionId: string | undefined,
    at: number,
  ): Promise<number> {
    const params = {
      environment_id: environmentId,
      provider_config_key: providerConfigKey,
      reason: STOPPED_REASON,
      at,
    };
    return connectionId === undefined
      ? this.q.cancelAll.run(params).changes
      : this.q.cancelOne.run({ ...params, connection_id: connectionId }).changes;
  }

  async claimDueManaged(
    environmentId: string,
    now: number,
    owner: string,
    claimUntil: number,
    limit: number,
  ): Promise<ManagedSlot[]> {
    const rows = this.q.claim.all({ environment_id: environmentId, now, owner, until: claimUntil, limit });
    return rows.map(fromRow).sort((a, b) => (a.dueAt ?? 0) - (b.dueAt ?? 0));
  }

  async finishManaged(
    key: ManagedSlotKey,
    owner: string,
    generation: number,
    outcome: ManagedOutcome,
    at: number,
  ): Promise<ManagedSlot | null> {
    const row = this.q.finish.get({
      ...keyParams(key),
      owner,
      generation,
      keep_channel: outcome.channelId === undefined ? 1 : 0,
      channel_id: outcome.channelId ?? null,
      keep_stale: outcome.staleChannelId === undefined ? 1 : 0,
      stale_channel_id: outcome.staleChannelId ?? null,
      due_at: outcome.dueAt,
      reason: outcome.reason,
      error: outcome.error ?? null,
      at,
    });
    return row ? fromRow(row) : null;
  }

  async getManaged(key: ManagedSlotKey): Promise<ManagedSlot | null> {
    const row = this.q.get.get(keyParams(key));
    return row ? fromRow(row) : null;
  }

  async nextManagedDue(environmentId: string): Promise<number | null> {
    return this.q.nextDue.get({ environment_id: environmentId })?.due ?? null;
  }
}

function prepare(db: Database) {
  const p = <R = unknown>(sql: string): Statement<R, [Params]> => db.prepare<R, [Params]>(sql);
  return {
    schedule: p<SlotRow>(
      `INSERT INTO managed_slots (environment_id, provider_config_key, connection_id, due_at, reason, generation, updated_at)
       VALUES ($environment_id, $provider_config_key, $connection_id, $due_at, $reason, 1, $at)
       ON CONFLICT (environment_id, provider_config_key, connection_id) DO UPDATE SET due_at = excluded.due_at,
         reason = excluded.reason, attempts = 0, last_error = NULL, generation = generation + 1,
         updated_at = MAX(updated_at, excluded.updated_at)
       RETURNING *`,
    ),
    cancelOne: p(
      `UPDATE managed_slots SET due_at = NULL, reason = $reason, generation = generation + 1,
         updated_at = MAX(updated_at, $at) WHERE ${KEY}`,
    ),
    cancelAll: p(
      `UPDATE managed_slots SET due_at = NULL, reason = $reason, generation = generation + 1,
         updated_at = MAX(updated_at, $at)
       WHERE environment_id = $environment_id AND provider_config_key = $provider_config_key`,
    ),
    // One statement: the pick and the claim are atomic, whatever other process claims at the same time.
    claim: p<SlotRow>(
      `UPDATE managed_slots SET claimed_by = $owner, claimed_until = $until
       WHERE rowid IN (SELECT rowid FROM managed_slots
         WHERE environment_id = $environment_id AND due_at <= $now
           AND (claimed_until IS NULL OR claimed_until <= $now)
         ORDER BY due_at LIMIT $limit)
       RETURNING *`,
    ),
    finish: p<SlotRow>(
      `UPDATE managed_slots SET
         channel_id = CASE WHEN $keep_channel = 1 THEN channel_id ELSE $channel_id END,
         stale_channel_id = CASE WHEN $keep_stale = 1 THEN stale_channel_id ELSE $stale_channel_id END,
         due_at = CASE WHEN generation = $generation THEN $due_at ELSE due_at END,
         reason = CASE WHEN generation = $generation THEN $reason ELSE reason END,
         attempts = CASE WHEN $error IS NULL THEN 0 ELSE attempts + 1 END,
         last_error = $error, claimed_by = NULL, claimed_until = NULL, updated_at = MAX(updated_at, $at)
       WHERE ${KEY} AND claimed_by = $owner
       RETURNING *`,
    ),
    get: p<SlotRow>(`SELECT * FROM managed_slots WHERE ${KEY}`),
    nextDue: p<{ due: number | null }>(
      "SELECT MIN(due_at) AS due FROM managed_slots WHERE environment_id = $environment_id AND due_at IS NOT NULL",
    ),
  };
}

function keyParams(key: ManagedSlotKey): Params {
  return {
    environment_id: key.environmentId,
    provider_config_key: key.providerConfigKey,
    connection_id: key.connectionId,
  };
}

function fromRow(r: SlotRow): ManagedSlot {
  return {
    environmentId: r.environment_id,
    providerConfigKey: r.provider_config_key,
    connectionId: r.connection_id,
    channelId: r.channel_id,
    staleChannelId: r.stale_channel_id,
    dueAt: r.due_at,
    reason: r.reason,
    attempts: r.attempts,
    lastError: r.last_error,
    generation: r.generation,
    claimedBy: r.claimed_by,
    claimedUntil: r.claimed_until,
    updatedAt: r.updated_at,
  };
}
