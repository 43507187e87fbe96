import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import type { ChannelRecord, ChannelWatch } from "./records.ts";
import { managedSlotConformance } from "./managed-store.conformance.ts";
import type { ChannelStore } from "./store.ts";

/** A fresh, empty store and how to dispose of it. */
export type ChannelStoreFactory = () => Promise<{ store: ChannelStore; cleanup: () => Promise<void> }>;

const ENV = "env_conformance";
const OTHER_ENV = "env_other";
const CAL = "cal";
const T0 = Date.UTC(2026, 10, 21, 12, 0, 0);
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/**
 * The behaviour every ChannelStore must have, registered as bun:test tests against a fresh store per
 * test. Run by each implementation's test file.
 */
export function channelStoreConformance(name: string, factory: ChannelStoreFactory): void {
  describe(`${name} conformance`, () => {
    let store: ChannelStore;
    let cleanup: () => Promise<void>;

    beforeEach(async () => {
      ({ store, cleanup } = await factory());
    });
    afterEach(async () => {
      await cleanup();
    });

    const watch = (channelId: string, over: Partial<ChannelWatch> = {}): ChannelWatch => ({
      environmentId: ENV,
      channelId,
      resourceId: "res-primary",
      providerConfigKey: CAL,
      connectionId: "conn-a",
      resourceUri: "https://calendar.example.test/calendar/v3/calendars/a%40example.com/events?alt=json",
      expiration: T0 + 7 * DAY,
      token: "target=ops&v=1",
      at: T0,
      ...over,
    });
    const ids = (channels: ChannelRecord[]) => channels.map((c) => c.id);

    describe("channel tokens", () => {
      test("keeps a watch's digest, lists the rows with a token in order, and swaps a token only if unchanged", async () => {
        await store.recordWatch(watch("ch-b", { token: "enc:v2:sealed-b", tokenDigest: "mac:v1:k:b" }));
        await store.recordWatch(watch("ch-a"));
        await store.recordWatch(watch("ch-c", { token: null }));
        expect((await store.get(ENV, "ch-b", T0))?.tokenDigest).toBe("mac:v1:k:b");
        const all = await store.tokenRows(null, 10, false);
        expect(all).toEqual([
          { environmentId: ENV, id: "ch-a", token: "target=ops&v=1", tokenDigest: null },
          { environmentId: ENV, id: "ch-b", token: "enc:v2:sealed-b", tokenDigest: "mac:v1:k:b" },
        ]);
        expect(await store.tokenRows(null, 10, true)).toEqual(all.slice(0, 1));
        expect(await store.tokenRows({ environmentId: ENV, id: "ch-a" }, 1, false)).toEqual(all.slice(1, 2));
        const next = { environmentId: ENV, id: "ch-a", token: "enc:v2:sealed-a", tokenDigest: "mac:v1:k:a" };
        expect(await store.replaceToken(next, "something else")).toBe(false);
        expect(await store.replaceToken(next, "target=ops&v=1")).toBe(true);
        expect(await store.get(ENV, "ch-a", T0)).toMatchObject({ token: "enc:v2:sealed-a", tokenDigest: "mac:v1:k:a" });
      });
    });

    describe("recordWatch", () => {
      test("inserts an active channel with every field, the token kept as given", async () => {
        const { applied, channel } = await store.recordWatch(watch("ch-1"));
        const expected: ChannelRecord = {
          environmentId: ENV,
          id: "ch-1",
          resourceId: "res-primary",
          providerConfigKey: CAL,
          connectionId: "conn-a",
          resourceUri: "https://calendar.example.test/calendar/v3/calendars/a%40example.com/events?alt=json",
          expiration: T0 + 7 * DAY,
          state: "active",
          createdAt: T0,
          updatedAt: T0,
          stoppedAt: null,
          lastMessageNumber: 0,
          token: "target=ops&v=1",
          tokenDigest: null,
          expiryWarnedAt: null,
        };
        expect(applied).toBe(true);
        expect(channel).toEqual(expected);
        expect(await store.get(ENV, "ch-1", T0)).toEqual(expected);
      });

      test("stores an unknown expiration and a missing token as null", async () => {
        await store.recordWatch(watch("ch-1", { expiration: null, token: null }));
        const got = await store.get(ENV, "ch-1", T0 + 365 * DAY);
        expect(got?.expiration).toBeNull();
        expect(got?.token).toBeNull();
        expect(got?.state).toBe("active");
      });

      test("seen again while active, refreshes the fields and keeps creation time and message number", async () => {
        await store.recordWatch(watch("ch-1"));
        await store.recordNotification(ENV, "ch-1", 4, T0 + 1000);
        const { applied, channel } = await store.recordWatch(
          watch("ch-1", { at: T0 + 2000, expiration: T0 + 8 * DAY, token: "v=2" }),
        );
        expect(applied).toBe(true);
        expect(channel).toMatchObject({
          createdAt: T0,
          updatedAt: T0 + 2000,
          expiration: T0 + 8 * DAY,
          token: "v=2",
          lastMessageNumber: 4,
          state: "active",
        });
        expect(await store.get(ENV, "ch-1", T0 + 2000)).toEqual(channel);
      });

      test("after a stop, starts the channel afresh under the same id", async () => {
        await store.recordWatch(watch("ch-1"));
        await store.recordNotification(ENV, "ch-1", 9, T0 + 1000);
        await store.recordStop(ENV, "ch-1", "res-primary", T0 + 2000);
        await store.recordWatch(watch("ch-1", { at: T0 + 3000 }));
        expect(await store.get(ENV, "ch-1", T0 + 3000)).toMatchObject({
          state: "active",
          stoppedAt: null,
          createdAt: T0 + 3000,
          lastMessageNumber: 0,
        });
      });

      test("ignores a late replay older than the stop", async () => {
        await store.recordWatch(watch("ch-1"));
        await store.recordStop(ENV, "ch-1", "res-primary", T0 + 2000);
        const { applied, channel } = await store.recordWatch(watch("ch-1", { at: T0 + 1000 }));
        expect(applied).toBe(false);
        expect(channel.state).toBe("stopped");
        expect((await store.get(ENV, "ch-1", T0 + 3000))?.state).toBe("stopped");
      });

      test("records one channel when the same watch arrives concurrently", async () => {
        const results = await Promise.all(Array.from({ length: 8 }, () => store.recordWatch(watch("ch-1"))));
        expect(results.every((r) => r.applied)).toBe(true);
        expect(ids(await store.list(ENV, {}, T0))).toEqual(["ch-1"]);
      });

      test("keeps environments apart", async () => {
        await store.recordWatch(watch("ch-1"));
        await store.recordWatch(watch("ch-1", { environmentId: OTHER_ENV, connectionId: "conn-other" }));
        expect((await store.get(ENV, "ch-1", T0))?.connectionId).toBe("conn-a");
        expect((await store.get(OTHER_ENV, "ch-1", T0))?.connectionId).toBe("conn-other");
        expect(ids(await store.list(OTHER_ENV, {}, T0))).toEqual(["ch-1"]);
      });
    });

    describe("recordStop", () => {
      test("stops the channel when the resource id matches", async () => {
        await store.recordWatch(watch("ch-1"));
        expect(await store.recordStop(ENV, "ch-1", "res-primary", T0 + 5000)).toBe(true);
        expect(await store.get(ENV, "ch-1", T0 + 5000)).toMatchObject({
          state: "stopped",
          stoppedAt: T0 + 5000,
          updatedAt: T0 + 5000,
        });
      });

      test("does nothing when the resource id does not match", async () => {
        await store.recordWatch(watch("ch-1"));
        expect(await store.recordStop(ENV, "ch-1", "res-other", T0 + 5000)).toBe(false);
        expect(await store.get(ENV, "ch-1", T0 + 5000)).toMatchObject({ state: "active", stoppedAt: null });
      });

      test("does nothing for an unknown channel, another environment or a channel already stopped", async () => {
        await store.recordWatch(watch("ch-1"));
        expect(await store.recordStop(ENV, "ch-unknown", "res-primary", T0 + 1000)).toBe(false);
        expect(await store.recordStop(OTHER_ENV, "ch-1", "res-primary", T0 + 1000)).toBe(false);
        expect(await store.recordStop(ENV, "ch-1", "res-primary", T0 + 2000)).toBe(true);
        expect(await store.recordStop(ENV, "ch-1", "res-primary", T0 + 3000)).toBe(false);
        expect((await store.get(ENV, "ch-1", T0 + 3000))?.stoppedAt).toBe(T0 + 2000);
      });

      test("stops a channel that has expired", async () => {
        await store.recordWatch(watch("ch-1", { expiration: T0 + HOUR }));
        expect(await store.recordStop(ENV, "ch-1", "res-primary", T0 + 2 * HOUR)).toBe(true);
        expect((await store.get(ENV, "ch-1", T0 + 2 * HOUR))?.state).toBe("stopped");
      });
    });

    describe("recordRenewal", () => {
      test("extends an active channel's expiration and clears its expiry warning", async () => {
        await store.recordWatch(watch("ch-1", { expiration: T0 + DAY }));
        expect(await store.claimExpiryWarning(ENV, "ch-1", T0 + HOUR)).toBe(true);
        expect(await store.recordRenewal(ENV, "ch-1", T0 + 3 * DAY, T0 + 2 * HOUR)).toBe(true);
        expect(await store.get(ENV, "ch-1", T0 + 2 * DAY)).toMatchObject({
          state: "active",
          expiration: T0 + 3 * DAY,
          expiryWarnedAt: null,
          createdAt: T0,
          updatedAt: T0 + 2 * HOUR,
          token: "target=ops&v=1",
        });
      });

      test("never shortens: a late replay of an older renewal changes nothing", async () => {
        await store.recordWatch(watch("ch-1", { expiration: T0 + DAY }));
        expect(await store.recordRenewal(ENV, "ch-1", T0 + 3 * DAY, T0 + HOUR)).toBe(true);
        expect(await store.recordRenewal(ENV, "ch-1", T0 + 2 * DAY, T0 + 2 * HOUR)).toBe(false);
        expect((await store.get(ENV, "ch-1", T0 + 2 * HOUR))?.expiration).toBe(T0 + 3 * DAY);
      });

      test("does nothing for an unknown, stopped or expired channel, or another environment", async () => {
        await store.recordWatch(watch("ch-1", { expiration: T0 + DAY }));
        await store.recordWatch(watch("ch-2", { expiration: T0 + HOUR }));
        expect(await store.recordRenewal(ENV, "ch-unknown", T0 + 3 * DAY, T0 + 1000)).toBe(false);
        expect(await store.recordRenewal(OTHER_ENV, "ch-1", T0 + 3 * DAY, T0 + 1000)).toBe(false);
        expect(await store.recordRenewal(ENV, "ch-2", T0 + 3 * DAY, T0 + HOUR)).toBe(false);
        await store.recordStop(ENV, "ch-1", "res-primary", T0 + 1000);
        expect(await store.recordRenewal(ENV, "ch-1", T0 + 3 * DAY, T0 + 2000)).toBe(false);
        expect((await store.get(ENV, "ch-1", T0 + 2000))?.expiration).toBe(T0 + DAY);
        expect((await store.get(ENV, "ch-2", T0))?.expiration).toBe(T0 + HOUR);
      });
    });

    describe("recordNotification", () => {
      test("raises the message number and never lowers it", async () => {
        await store.recordWatch(watch("ch-1"));
        expect((await store.recordNotification(ENV, "ch-1", 3, T0 + 1000))?.lastMessageNumber).toBe(3);
        expect((await store.recordNotification(ENV, "ch-1", 2, T0 + 2000))?.lastMessageNumber).toBe(3);
        expect((await store.recordNotification(ENV, "ch-1", 7, T0 + 3000))?.lastMessageNumber).toBe(7);
        expect(await store.get(ENV, "ch-1", T0 + 3000)).toMatchObject({ lastMessageNumber: 7, updatedAt: T0 + 3000 });
      });

      test("keeps the highest number under concurrent notifications", async () => {
        await store.recordWatch(watch("ch-1"));
        await Promise.all([5, 1, 9, 3, 8, 2].map((n) => store.recordNotification(ENV, "ch-1", n, T0 + n)));
        expect((await store.get(ENV, "ch-1", T0 + 10))?.lastMessageNumber).toBe(9);
      });

      test("returns null for a channel not in the registry", async () => {
        expect(await store.recordNotification(ENV, "ch-unknown", 1, T0)).toBeNull();
        expect(await store.get(ENV, "ch-unknown", T0)).toBeNull();
      });
    });

    describe("effective state", () => {
      test("an active channel past its expiration reads as expired before markExpired runs", async () => {
        await store.recordWatch(watch("ch-1", { expiration: T0 + HOUR }));
        expect((await store.get(ENV, "ch-1", T0 + HOUR - 1))?.state).toBe("active");
        expect((await store.get(ENV, "ch-1", T0 + HOUR))?.state).toBe("expired");
        expect(ids(await store.list(ENV, { state: "active" }, T0 + HOUR))).toEqual([]);
        expect(ids(await store.list(ENV, { state: "expired" }, T0 + HOUR))).toEqual(["ch-1"]);
        expect((await store.list(ENV, {}, T0 + HOUR))[0]?.state).toBe("expired");
      });

      test("a stopped channel stays stopped past its expiration", async () => {
        await store.recordWatch(watch("ch-1", { expiration: T0 + HOUR }));
        await store.recordStop(ENV, "ch-1", "res-primary", T0 + 1000);
        expect((await store.get(ENV, "ch-1", T0 + 2 * HOUR))?.state).toBe("stopped");
        expect(ids(await store.list(ENV, { state: "expired" }, T0 + 2 * HOUR))).toEqual([]);
      });
    });

    describe("list", () => {
      const seed = async () => {
        await store.recordWatch(watch("ch-a1", { at: T0, connectionId: "conn-a", expiration: T0 + DAY }));
        await store.recordWatch(watch("ch-b1", { at: T0 + 1000, connectionId: "conn-b", expiration: null }));
        await store.recordWatch(
          watch("ch-m1", {
            at: T0 + 2000,
            providerConfigKey: "mail",
            connectionId: "conn-a",
            expiration: T0 + 3 * DAY,
          }),
        );
        await store.recordWatch(watch("ch-a2", { at: T0 + 3000, connectionId: "conn-a", expiration: T0 + 7 * DAY }));
        await store.recordStop(ENV, "ch-a1", "res-primary", T0 + 4000);
      };

      test("returns every channel of the environment, newest first", async () => {
        await seed();
        await store.recordWatch(watch("ch-elsewhere", { environmentId: OTHER_ENV }));
        expect(ids(await store.list(ENV, {}, T0 + 5000))).toEqual(["ch-a2", "ch-m1", "ch-b1", "ch-a1"]);
      });

      test("orders channels created in the same millisecond by id, descending", async () => {
        for (const id of ["ch-x", "ch-z", "ch-y"]) await store.recordWatch(watch(id));
        expect(ids(await store.list(ENV, {}, T0))).toEqual(["ch-z", "ch-y", "ch-x"]);
      });

      test("filters by integration, connection and state, together", async () => {
        await seed();
        const now = T0 + 5000;
        expect(ids(await store.list(ENV, { providerConfigKey: CAL }, now))).toEqual(["ch-a2", "ch-b1", "ch-a1"]);
        expect(ids(await store.list(ENV, { connectionId: "conn-a" }, now))).toEqual(["ch-a2", "ch-m1", "ch-a1"]);
        expect(ids(await store.list(ENV, { state: "stopped" }, now))).toEqual(["ch-a1"]);
        expect(ids(await store.list(ENV, { state: "active" }, now))).toEqual(["ch-a2", "ch-m1", "ch-b1"]);
        expect(
          ids(await store.list(ENV, { providerConfigKey: CAL, connectionId: "conn-a", state: "active" }, now)),
        ).toEqual(["ch-a2"]);
        expect(ids(await store.list(ENV, { providerConfigKey: "unknown" }, now))).toEqual([]);
      });

      test("filters by expiring before, leaving out channels of unknown expiration", async () => {
        await seed();
        const now = T0 + 5000;
        expect(ids(await store.list(ENV, { expiringBefore: T0 + 3 * DAY }, now))).toEqual(["ch-a1"]);
        expect(ids(await store.list(ENV, { expiringBefore: T0 + 3 * DAY + 1 }, now))).toEqual(["ch-m1", "ch-a1"]);
        expect(ids(await store.list(ENV, { expiringBefore: T0 + 30 * DAY, state: "active" }, now))).toEqual([
          "ch-a2",
          "ch-m1",
        ]);
      });
    });

    describe("markExpired", () => {
      test("writes expired on the active channels that are due and returns them", async () => {
        await store.recordWatch(watch("ch-due", { at: T0, expiration: T0 + HOUR }));
        await store.recordWatch(watch("ch-exact", { at: T0 + 1, expiration: T0 + 2 * HOUR }));
        await store.recordWatch(watch("ch-later", { at: T0 + 2, expiration: T0 + 3 * HOUR }));
        await store.recordWatch(watch("ch-forever", { at: T0 + 3, expiration: null }));
        await store.recordWatch(watch("ch-stopped", { at: T0 + 4, expiration: T0 + HOUR }));
        await store.recordStop(ENV, "ch-stopped", "res-primary", T0 + 5);
        await store.recordWatch(watch("ch-due", { environmentId: OTHER_ENV, expiration: T0 + HOUR }));

        const expired = await store.markExpired(ENV, T0 + 2 * HOUR);
        expect(ids(expired)).toEqual(["ch-exact", "ch-due"]);
        expect(expired.every((c) => c.state === "expired" && c.updatedAt === T0 + 2 * HOUR)).toBe(true);
        expect(await store.get(ENV, "ch-due", T0)).toMatchObject({ state: "expired" });
        expect((await store.get(ENV, "ch-later", T0))?.state).toBe("active");
        expect((await store.get(ENV, "ch-forever", T0))?.state).toBe("active");
        expect((await store.get(ENV, "ch-stopped", T0))?.state).toBe("stopped");
        // Stored, not just read: other environments are untouched, and a second run finds nothing.
        expect((await store.get(OTHER_ENV, "ch-due", T0))?.state).toBe("active");
        expect(await store.markExpired(ENV, T0 + 2 * HOUR)).toEqual([]);
      });

      test("a watch with the same id after expiry starts the channel afresh", async () => {
        await store.recordWatch(watch("ch-1", { expiration: T0 + HOUR }));
        await store.recordNotification(ENV, "ch-1", 5, T0 + 1000);
        await store.markExpired(ENV, T0 + HOUR);
        await store.recordWatch(watch("ch-1", { at: T0 + 2 * HOUR, expiration: T0 + 9 * HOUR }));
        expect(await store.get(ENV, "ch-1", T0 + 2 * HOUR)).toMatchObject({
          state: "active",
          createdAt: T0 + 2 * HOUR,
          lastMessageNumber: 0,
        });
      });
    });

    describe("expiry warnings", () => {
      test("are claimed once per channel, only while it is active", async () => {
        await store.recordWatch(watch("ch-1"));
        await store.recordWatch(watch("ch-stopped", { at: T0 + 1 }));
        await store.recordStop(ENV, "ch-stopped", "res-primary", T0 + 2);
        expect(await store.claimExpiryWarning(ENV, "ch-1", T0 + HOUR)).toBe(true);
        expect(await store.claimExpiryWarning(ENV, "ch-1", T0 + 2 * HOUR)).toBe(false);
        expect((await store.get(ENV, "ch-1", T0 + 2 * HOUR))?.expiryWarnedAt).toBe(T0 + HOUR);
        expect(await store.claimExpiryWarning(ENV, "ch-stopped", T0 + HOUR)).toBe(false);
        expect(await store.claimExpiryWarning(ENV, "ch-unknown", T0 + HOUR)).toBe(false);
        expect(await store.claimExpiryWarning(OTHER_ENV, "ch-1", T0 + HOUR)).toBe(false);
      });

      test("exactly one of several concurrent claims wins", async () => {
        await store.recordWatch(watch("ch-1"));
        const claims = await Promise.all(
          Array.from({ length: 8 }, (_, i) => store.claimExpiryWarning(ENV, "ch-1", T0 + i)),
        );
        expect(claims.filter(Boolean)).toHaveLength(1);
      });

      test("a released claim can be claimed again; a release of another claim changes nothing", async () => {
        await store.recordWatch(watch("ch-1"));
        await store.claimExpiryWarning(ENV, "ch-1", T0 + 10);
        await store.releaseExpiryWarning(ENV, "ch-1", T0 + 99);
        expect((await store.get(ENV, "ch-1", T0))?.expiryWarnedAt).toBe(T0 + 10);
        await store.releaseExpiryWarning(ENV, "ch-1", T0 + 10);
        expect((await store.get(ENV, "ch-1", T0))?.expiryWarnedAt).toBeNull();
        expect(await store.claimExpiryWarning(ENV, "ch-1", T0 + 20)).toBe(true);
      });

      test("are cleared when the channel starts afresh or its expiration changes, kept otherwise", async () => {
        await store.recordWatch(watch("ch-1"));
        await store.claimExpiryWarning(ENV, "ch-1", T0 + 10);
        await store.recordWatch(watch("ch-1", { at: T0 + 20 }));
        expect((await store.get(ENV, "ch-1", T0 + 20))?.expiryWarnedAt).toBe(T0 + 10);
        await store.recordWatch(watch("ch-1", { at: T0 + 30, expiration: T0 + 9 * DAY }));
        expect((await store.get(ENV, "ch-1", T0 + 30))?.expiryWarnedAt).toBeNull();
        await store.claimExpiryWarning(ENV, "ch-1", T0 + 40);
        await store.recordStop(ENV, "ch-1", "res-primary", T0 + 50);
        await store.recordWatch(watch("ch-1", { at: T0 + 60, expiration: T0 + 9 * DAY }));
        expect((await store.get(ENV, "ch-1", T0 + 60))?.expiryWarnedAt).toBeNull();
      });
    });

    test("renewal: with the old channel stopped, only the new one of the connection is active", async () => {
      // spec: Customer-side scripts, renewal: create the new channel, then stop the old one.
      await store.recordWatch(watch("ch-old", { at: T0, resourceId: "res-1" }));
      await store.recordWatch(watch("ch-new", { at: T0 + DAY, resourceId: "res-1", expiration: T0 + 8 * DAY }));
      expect(await store.recordStop(ENV, "ch-old", "res-1", T0 + DAY + 500)).toBe(true);
      const active = await store.list(ENV, { connectionId: "conn-a", state: "active" }, T0 + DAY + 1000);
      expect(ids(active)).toEqual(["ch-new"]);
      expect(ids(await store.list(ENV, { connectionId: "conn-a" }, T0 + DAY + 1000))).toEqual(["ch-new", "ch-old"]);
    });
  });
  managedSlotConformance(name, factory);
}
