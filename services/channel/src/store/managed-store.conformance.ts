import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import type { ManagedSlotKey } from "./managed-records.ts";
import type { ChannelStoreFactory } from "./store.conformance.ts";
import type { ChannelStore } from "./store.ts";

const ENV = "env_managed_conformance";
const T0 = Date.UTC(2026, 10, 21, 12, 0, 0);
const MIN = 60_000;

/** The behaviour of the managed channels' schedule every ChannelStore must have. */
export function managedSlotConformance(name: string, factory: ChannelStoreFactory): void {
  describe(`${name} managed slots`, () => {
    let store: ChannelStore;
    let cleanup: () => Promise<void>;
    beforeEach(async () => {
      ({ store, cleanup } = await factory());
    });
    afterEach(async () => {
      await cleanup();
    });

    const key = (connectionId: string, providerConfigKey = "cal"): ManagedSlotKey => ({
      environmentId: ENV,
      providerConfigKey,
      connectionId,
    });

    test("a schedule inserts the slot, and a later one resets its failures and bumps the generation", async () => {
      const first = await store.managed.scheduleManaged(key("a"), "connection_created", T0, T0);
      expect(first).toMatchObject({ channelId: null, dueAt: T0, reason: "connection_created", attempts: 0 });
      expect(first.lastError).toBeNull();
      const [claimed] = await store.managed.claimDueManaged(ENV, T0, "p1", T0 + MIN, 10);
      await store.managed.finishManaged(
        key("a"),
        "p1",
        first.generation,
        { dueAt: T0 + MIN, reason: "retry", error: "x: y" },
        T0,
      );
      expect(claimed?.claimedBy).toBe("p1");
      const again = await store.managed.scheduleManaged(key("a"), "connection_reauthorized", T0 + 5, T0 + 5);
      expect(again).toMatchObject({ dueAt: T0 + 5, reason: "connection_reauthorized", attempts: 0, lastError: null });
      expect(again.generation).toBeGreaterThan(first.generation);
      expect(await store.managed.getManaged(key("a"))).toEqual(again);
      expect(await store.managed.getManaged(key("missing"))).toBeNull();
    });

    test("one claimant gets each due slot, earliest first; a live claim is not taken, an expired one is", async () => {
      await store.managed.scheduleManaged(key("late"), "r", T0 + 2 * MIN, T0);
      await store.managed.scheduleManaged(key("early"), "r", T0 + MIN, T0);
      await store.managed.scheduleManaged(key("future"), "r", T0 + 60 * MIN, T0);
      await store.managed.scheduleManaged({ ...key("other"), environmentId: "env_else" }, "r", T0, T0);
      const now = T0 + 3 * MIN;
      const p1 = await store.managed.claimDueManaged(ENV, now, "p1", now + MIN, 1);
      const p2 = await store.managed.claimDueManaged(ENV, now, "p2", now + MIN, 10);
      expect(p1.map((s) => s.connectionId)).toEqual(["early"]);
      expect(p2.map((s) => s.connectionId)).toEqual(["late"]);
      expect(await store.managed.claimDueManaged(ENV, now, "p3", now + MIN, 10)).toEqual([]);
      const taken = await store.managed.claimDueManaged(ENV, now + MIN, "p3", now + 2 * MIN, 10);
      expect(taken.map((s) => [s.connectionId, s.claimedBy])).toEqual([
        ["early", "p3"],
        ["late", "p3"],
      ]);
      expect(await store.managed.nextManagedDue(ENV)).toBe(T0 + MIN);
    });

    test("finishing needs the claim; a success clears failures, a failure counts them", async () => {
      const slot = await store.managed.scheduleManaged(key("a"), "connection_created", T0, T0);
      await store.managed.claimDueManaged(ENV, T0, "p1", T0 + MIN, 10);
      expect(
        await store.managed.finishManaged(key("a"), "p2", slot.generation, { dueAt: 1, reason: "x" }, T0),
      ).toBeNull();
      const failed = await store.managed.finishManaged(
        key("a"),
        "p1",
        slot.generation,
        { dueAt: T0 + MIN, reason: "connection_created", error: "upstream_refused: 403" },
        T0,
      );
      expect(failed).toMatchObject({
        attempts: 1,
        lastError: "upstream_refused: 403",
        dueAt: T0 + MIN,
        claimedBy: null,
      });
      expect(failed?.claimedUntil).toBeNull();
      await store.managed.claimDueManaged(ENV, T0 + MIN, "p1", T0 + 2 * MIN, 10);
      const done = await store.managed.finishManaged(
        key("a"),
        "p1",
        slot.generation,
        { channelId: "chn_1", dueAt: T0 + 6 * MIN, reason: "renewal" },
        T0 + MIN,
      );
      expect(done).toMatchObject({ channelId: "chn_1", dueAt: T0 + 6 * MIN, reason: "renewal", attempts: 0 });
      expect(done?.staleChannelId).toBeNull();
      await store.managed.claimDueManaged(ENV, T0 + 6 * MIN, "p1", T0 + 7 * MIN, 10);
      const stale = await store.managed.finishManaged(
        key("a"),
        "p1",
        slot.generation,
        { channelId: "chn_2", staleChannelId: "chn_1", dueAt: T0 + 7 * MIN, reason: "stop_replaced" },
        T0 + 6 * MIN,
      );
      expect(stale).toMatchObject({ channelId: "chn_2", staleChannelId: "chn_1" });
      await store.managed.claimDueManaged(ENV, T0 + 7 * MIN, "p1", T0 + 8 * MIN, 10);
      const kept = await store.managed.finishManaged(
        key("a"),
        "p1",
        slot.generation,
        { dueAt: 1, reason: "x", error: "e" },
        T0,
      );
      expect(kept).toMatchObject({ channelId: "chn_2", staleChannelId: "chn_1" });
      expect(done?.lastError).toBeNull();
    });

    test("a schedule or a cancel during a run stands; the run's channel is still recorded", async () => {
      const slot = await store.managed.scheduleManaged(key("a"), "connection_created", T0, T0);
      await store.managed.claimDueManaged(ENV, T0, "p1", T0 + MIN, 10);
      await store.managed.cancelManaged(ENV, "cal", "a", T0 + 1);
      const after = await store.managed.finishManaged(
        key("a"),
        "p1",
        slot.generation,
        { channelId: "chn_new", dueAt: T0 + 99, reason: "renewal" },
        T0 + 2,
      );
      expect(after).toMatchObject({ channelId: "chn_new", dueAt: null, reason: "stopped" });
      expect(await store.managed.nextManagedDue(ENV)).toBeNull();

      const next = await store.managed.scheduleManaged(key("a"), "removed", T0 + 3, T0 + 3);
      await store.managed.claimDueManaged(ENV, T0 + 3, "p1", T0 + MIN, 10);
      await store.managed.scheduleManaged(key("a"), "reauthorization_required", T0 + 4, T0 + 4);
      const kept = await store.managed.finishManaged(
        key("a"),
        "p1",
        next.generation,
        { dueAt: T0 + 99, reason: "renewal" },
        T0 + 5,
      );
      expect(kept).toMatchObject({ channelId: "chn_new", dueAt: T0 + 4, reason: "reauthorization_required" });
    });

    test("a cancel without a connection cancels every slot of the integration only", async () => {
      await store.managed.scheduleManaged(key("a"), "r", T0, T0);
      await store.managed.scheduleManaged(key("b"), "r", T0, T0);
      await store.managed.scheduleManaged(key("c", "other"), "r", T0, T0);
      expect(await store.managed.cancelManaged(ENV, "cal", undefined, T0 + 1)).toBe(2);
      expect((await store.managed.getManaged(key("a")))?.dueAt).toBeNull();
      expect((await store.managed.getManaged(key("c", "other")))?.dueAt).toBe(T0);
      expect(await store.managed.cancelManaged(ENV, "cal", "missing", T0 + 1)).toBe(0);
    });
  });
}
