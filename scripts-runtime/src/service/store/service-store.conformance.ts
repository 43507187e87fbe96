import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import type { ScheduleKey } from "./records.ts";
import type { ScriptsServiceStore } from "./service-store.ts";

/** A fresh, empty store and how to dispose of it. */
export type ServiceStoreFactory = () => Promise<{ store: ScriptsServiceStore; cleanup: () => Promise<void> }>;

const DAY = 86_400_000;
const T0 = 1_767_225_600_000;
const key = (connectionId: string, scriptName = "renewal"): ScheduleKey => ({
  environmentId: "env_conformance",
  providerConfigKey: "google-calendar",
  scriptName,
  connectionId,
});
const lease = (holder: string, until = T0 + 120_000) => ({ holder, until });

/** The behaviour every ScriptsServiceStore must have; run by each implementation's test file. */
export function serviceStoreConformance(name: string, factory: ServiceStoreFactory): void {
  describe(`${name} conformance`, () => {
    let store: ScriptsServiceStore;
    let cleanup: () => Promise<void>;
    beforeEach(async () => {
      ({ store, cleanup } = await factory());
    });
    afterEach(() => cleanup());

    test("ensureSchedules inserts missing rows only and keeps the times of existing ones", async () => {
      expect(await store.ensureSchedules([{ ...key("a"), nextDueAt: T0 + DAY }])).toBe(1);
      expect(
        await store.ensureSchedules([
          { ...key("a"), nextDueAt: T0 + 5 * DAY },
          { ...key("b"), nextDueAt: null },
        ]),
      ).toBe(1);
      expect((await store.getSchedule(key("a")))?.nextDueAt).toBe(T0 + DAY);
      expect(await store.getSchedule(key("b"))).toMatchObject({
        nextDueAt: null,
        leaseHolder: null,
        lastSuccessAt: null,
        followUp: null,
        followUpAt: null,
        frequency: null,
      });
      expect(await store.getSchedule(key("zz"))).toBeNull();
    });

    test("listDue and earliestDue see scheduled rows only, earliest first", async () => {
      await store.ensureSchedules([
        { ...key("late"), nextDueAt: T0 + 2 * DAY },
        { ...key("early"), nextDueAt: T0 + DAY },
        { ...key("manual"), nextDueAt: null },
      ]);
      expect(await store.earliestDue()).toBe(T0 + DAY);
      expect(await store.listDue(T0, 10)).toEqual([]);
      expect((await store.listDue(T0 + 3 * DAY, 10)).map((e) => e.connectionId)).toEqual(["early", "late"]);
      expect((await store.listDue(T0 + 3 * DAY, 1)).map((e) => e.connectionId)).toEqual(["early"]);
    });

    test("a due time is claimed once: the second claim of the same time is lost", async () => {
      await store.ensureSchedules([{ ...key("a"), nextDueAt: T0 }]);
      const claims = await Promise.all([
        store.claimDue(key("a"), T0, T0 + DAY, lease("one"), T0),
        store.claimDue(key("a"), T0, T0 + DAY, lease("two"), T0),
      ]);
      expect(claims.sort()).toEqual(["claimed", "lost"]);
      expect((await store.getSchedule(key("a")))?.nextDueAt).toBe(T0 + DAY);
    });

    test("a due time that finds the lease held is busy, and skipping it moves it on once", async () => {
      await store.ensureSchedules([{ ...key("a"), nextDueAt: T0 }]);
      expect(await store.claimDue(key("a"), T0, T0 + DAY, lease("one", T0 + 5 * DAY), T0)).toBe("claimed");
      expect(await store.claimDue(key("a"), T0 + DAY, T0 + 2 * DAY, lease("two"), T0 + DAY)).toBe("busy");
      expect(await store.skipDue(key("a"), T0 + DAY, T0 + 2 * DAY)).toBe(true);
      expect(await store.skipDue(key("a"), T0 + DAY, T0 + 2 * DAY)).toBe(false);
      expect(await store.getSchedule(key("a"))).toMatchObject({ nextDueAt: T0 + 2 * DAY, leaseHolder: "one" });
    });

    test("a lapsed lease no longer blocks a claim", async () => {
      await store.ensureSchedules([{ ...key("a"), nextDueAt: T0 }]);
      expect(await store.claimDue(key("a"), T0, T0 + DAY, lease("dead", T0 + 1000), T0)).toBe("claimed");
      expect(await store.claimDue(key("a"), T0 + DAY, T0 + 2 * DAY, lease("alive"), T0 + DAY)).toBe("claimed");
      expect((await store.getSchedule(key("a")))?.leaseHolder).toBe("alive");
    });

    test("a trigger's lease is refused while a run holds it, and creates a missing row", async () => {
      expect(await store.acquireLease(key("new"), lease("one"), T0, null)).toBe(true);
      expect(await store.getSchedule(key("new"))).toMatchObject({ nextDueAt: null, leaseHolder: "one" });
      expect(await store.acquireLease(key("new"), lease("two"), T0, null)).toBe(false);
      await store.releaseLease(key("new"), "two", T0); // not the holder: nothing happens
      expect((await store.getSchedule(key("new")))?.leaseHolder).toBe("one");
      await store.releaseLease(key("new"), "one", T0 + 7);
      expect(await store.getSchedule(key("new"))).toMatchObject({ leaseHolder: null, lastSuccessAt: T0 + 7 });
      expect(await store.acquireLease(key("new"), lease("two"), T0, 123)).toBe(true);
      await store.releaseLease(key("new"), "two", null);
      expect(await store.getSchedule(key("new"))).toMatchObject({ nextDueAt: null, lastSuccessAt: T0 + 7 });
    });

    test("removing a script's or a connection's schedules removes only theirs", async () => {
      await store.ensureSchedules([
        { ...key("a", "s1"), nextDueAt: T0 },
        { ...key("b", "s1"), nextDueAt: T0 },
        { ...key("a", "s2"), nextDueAt: T0 },
      ]);
      expect(await store.removeConnectionSchedules("env_conformance", "google-calendar", "a")).toBe(2);
      expect(await store.getSchedule(key("b", "s1"))).not.toBeNull();
      expect(await store.removeScriptSchedules("env_conformance", "google-calendar", "s1")).toBe(1);
      expect(await store.earliestDue()).toBeNull();
    });

    test("a follow-up queued during a run coalesces, a full refresh wins, and the holder takes it at release", async () => {
      expect(await store.queueFollowUp(key("none"), "incremental", T0)).toBe(false);
      expect(await store.acquireLease(key("a"), lease("one"), T0, null)).toBe(true);
      expect(await store.queueFollowUp(key("a"), "incremental", T0)).toBe(true);
      expect(await store.getSchedule(key("a"))).toMatchObject({ followUp: "incremental", followUpAt: T0 + 120_000 });
      await store.queueFollowUp(key("a"), "full_refresh", T0 + 1);
      await store.queueFollowUp(key("a"), "incremental", T0 + 2);
      expect(await store.getSchedule(key("a"))).toMatchObject({ followUp: "full_refresh", followUpAt: T0 + 120_000 });
      expect(await store.releaseLease(key("a"), "two", T0, lease("two", T0 + 9))).toBeNull(); // not the holder
      expect(await store.releaseLease(key("a"), "one", T0, lease("one", T0 + 500_000))).toBe("full_refresh");
      expect(await store.getSchedule(key("a"))).toMatchObject({
        leaseHolder: "one",
        leaseUntil: T0 + 500_000,
        followUp: null,
        followUpAt: null,
        lastSuccessAt: T0,
      });
      expect(await store.releaseLease(key("a"), "one", null, lease("one"))).toBeNull();
      expect(await store.getSchedule(key("a"))).toMatchObject({ leaseHolder: null, lastSuccessAt: T0 });
    });

    test("a follow-up whose holder died is due at the lease's end, and claimed once the lease is free", async () => {
      await store.ensureSchedules([{ ...key("a"), nextDueAt: T0 + 10 * DAY }]);
      expect(await store.acquireLease(key("a"), lease("dead", T0 + 1000), T0, null)).toBe(true);
      await store.queueFollowUp(key("a"), "incremental", T0);
      expect(await store.earliestDue()).toBe(T0 + 1000);
      expect(await store.listDue(T0 + 999, 10)).toEqual([]);
      expect((await store.listDue(T0 + 1000, 10)).map((e) => e.followUpAt)).toEqual([T0 + 1000]);
      expect(await store.claimFollowUp(key("a"), T0 + 1000, lease("late"), T0 + 999)).toBeNull();
      expect(await store.claimFollowUp(key("a"), T0 + 5, lease("x"), T0 + 1000)).toBeNull(); // not that time
      expect(await store.claimFollowUp(key("a"), T0 + 1000, lease("alive"), T0 + 1000)).toBe("incremental");
      expect(await store.claimFollowUp(key("a"), T0 + 1000, lease("again"), T0 + 1000)).toBeNull();
      expect(await store.getSchedule(key("a"))).toMatchObject({ leaseHolder: "alive", followUp: null });
      expect(await store.earliestDue()).toBe(T0 + 10 * DAY);
    });

    test("a follow-up found held is looked at again when the lease would lapse", async () => {
      expect(await store.acquireLease(key("a"), lease("one", T0 + 1000), T0, null)).toBe(true);
      await store.queueFollowUp(key("a"), "incremental", T0);
      await store.releaseLease(key("a"), "one", null); // no renew: the follow-up stays, for anyone
      expect(await store.acquireLease(key("a"), lease("two", T0 + 7000), T0 + 1000, null)).toBe(true);
      expect(await store.claimFollowUp(key("a"), T0 + 1000, lease("three"), T0 + 1000)).toBeNull();
      expect(await store.getSchedule(key("a"))).toMatchObject({ followUp: "incremental", followUpAt: T0 + 7000 });
    });

    test("pausing removes the due time and any follow-up, starting makes a paused row due now", async () => {
      await store.ensureSchedules([
        { ...key("a"), nextDueAt: T0 + DAY },
        { ...key("b"), nextDueAt: T0 + DAY },
      ]);
      await store.acquireLease(key("a"), lease("one"), T0, null);
      await store.queueFollowUp(key("a"), "incremental", T0);
      expect(await store.setPaused([key("a"), key("new")], true, T0)).toBe(2);
      expect(await store.setPaused([key("a"), key("new")], true, T0)).toBe(0);
      expect(await store.getSchedule(key("a"))).toMatchObject({ nextDueAt: null, followUp: null, followUpAt: null });
      expect(await store.getSchedule(key("new"))).toMatchObject({ nextDueAt: null, leaseHolder: null });
      expect((await store.listDue(T0 + 3 * DAY, 10)).map((e) => e.connectionId)).toEqual(["b"]);
      expect(await store.setPaused([key("a"), key("b"), key("fresh")], false, T0 + 5)).toBe(2);
      expect((await store.getSchedule(key("a")))?.nextDueAt).toBe(T0 + 5);
      expect((await store.getSchedule(key("b")))?.nextDueAt).toBe(T0 + DAY);
      expect((await store.getSchedule(key("fresh")))?.nextDueAt).toBe(T0 + 5);
      expect((await store.getSchedule(key("new")))?.nextDueAt).toBeNull();
    });

    test("a connection's own frequency is kept, moves a scheduled row's next due time, and resets", async () => {
      await store.ensureSchedules([{ ...key("a"), nextDueAt: T0 + DAY }]);
      await store.setFrequency(key("a"), { text: "every hour", ms: 3_600_000 }, DAY, T0);
      expect(await store.getSchedule(key("a"))).toMatchObject({
        nextDueAt: T0 + 3_600_000,
        frequency: { text: "every hour", ms: 3_600_000 },
      });
      await store.setFrequency(key("a"), null, DAY, T0 + 10);
      expect(await store.getSchedule(key("a"))).toMatchObject({ nextDueAt: T0 + 10 + DAY, frequency: null });
      await store.setFrequency(key("paused"), { text: "5m", ms: 300_000 }, DAY, T0);
      expect(await store.getSchedule(key("paused"))).toMatchObject({
        nextDueAt: null,
        frequency: { text: "5m", ms: 300_000 },
      });
    });

    test("script options are stored per script, replaced, and removed", async () => {
      expect(await store.getOptions("env_conformance", "google-calendar", "s")).toBeNull();
      await store.setOptions("env_conformance", "google-calendar", "s", { forwardWebhooksToo: true });
      expect(await store.getOptions("env_conformance", "google-calendar", "s")).toEqual({ forwardWebhooksToo: true });
      await store.setOptions("env_conformance", "google-calendar", "s", { forwardWebhooksToo: false });
      expect(await store.getOptions("env_conformance", "google-calendar", "s")).toEqual({ forwardWebhooksToo: false });
      expect(await store.getOptions("env_conformance", "google-calendar", "other")).toBeNull();
      await store.removeOptions("env_conformance", "google-calendar", "s");
      expect(await store.getOptions("env_conformance", "google-calendar", "s")).toBeNull();
    });

    test("one deploy lock per environment: held until released or lapsed, released only by its holder", async () => {
      expect(await store.acquireDeployLock("env_a", lease("d1", T0 + 1000), T0)).toBe(true);
      expect(await store.acquireDeployLock("env_a", lease("d2", T0 + 2000), T0 + 10)).toBe(false);
      expect(await store.acquireDeployLock("env_b", lease("d3", T0 + 1000), T0 + 10)).toBe(true);
      await store.releaseDeployLock("env_a", "d2");
      expect(await store.acquireDeployLock("env_a", lease("d2", T0 + 2000), T0 + 20)).toBe(false);
      await store.releaseDeployLock("env_a", "d1");
      expect(await store.acquireDeployLock("env_a", lease("d2", T0 + 2000), T0 + 30)).toBe(true);
      // A holder that died: its lock lapses.
      expect(await store.acquireDeployLock("env_a", lease("d4", T0 + 9000), T0 + 2000)).toBe(true);
      expect(await store.acquireDeployLock("env_a", lease("d5", T0 + 9000), T0 + 3000)).toBe(false);
    });
  });
}
