import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { idTimeBound, newId } from "@junction/platform";
import type { AttemptRecord, MessageRecord, RoundOutcome } from "./records.ts";
import type { WebhookDeliveryStore } from "./store.ts";

/** A fresh, empty store and how to dispose of it. */
export type DeliveryStoreFactory = () => Promise<{ store: WebhookDeliveryStore; cleanup: () => Promise<void> }>;

const ENV = "env_conformance";
const OTHER_ENV = "env_other";
const T0 = 1_767_225_600_000;
const LEASE = 20_000;

let seq = 0;
/** A new pending message due at T0; ids grow with `at` so that newest-first is by id. */
function message(over: Partial<MessageRecord> = {}, at = T0 + ++seq): MessageRecord {
  return {
    id: newId("msg", at),
    environmentId: ENV,
    type: "forward",
    providerConfigKey: "google-calendar",
    connectionId: "conn-a",
    notificationId: newId("ntf", at),
    body: new TextEncoder().encode(`{"n":${seq}}`),
    status: "pending",
    attemptCount: 0,
    roundAttempts: 0,
    nextAttemptAt: T0,
    lastError: null,
    deliveredEndpointIds: [],
    leaseToken: null,
    leaseUntil: null,
    createdAt: at,
    updatedAt: at,
    ...over,
  };
}

function attempt(messageId: string, over: Partial<AttemptRecord> = {}): AttemptRecord {
  return {
    id: newId("att", T0),
    messageId,
    endpointId: "ep_1",
    url: "https://hooks.example.com/in",
    statusCode: 500,
    latencyMs: 12,
    responseSnippet: "oops",
    error: "HTTP 500",
    at: T0,
    number: 1,
    ...over,
  };
}

function failedOutcome(over: Partial<RoundOutcome> = {}): RoundOutcome {
  return {
    status: "failed",
    attemptCount: 1,
    roundAttempts: 1,
    nextAttemptAt: T0 + 5000,
    lastError: "HTTP 500",
    deliveredEndpointIds: [],
    updatedAt: T0 + 1,
    ...over,
  };
}

/**
 * The behaviour every WebhookDeliveryStore must have, registered as bun:test tests against a fresh
 * store per test. Run by each implementation's test file.
 */
export function deliveryStoreConformance(name: string, factory: DeliveryStoreFactory): void {
  describe(`${name} delivery conformance`, () => {
    let store: WebhookDeliveryStore;
    let cleanup: () => Promise<void>;

    beforeEach(async () => {
      ({ store, cleanup } = await factory());
    });
    afterEach(async () => {
      await cleanup();
    });

    test("stores a message once and reads every field back, body byte for byte", async () => {
      const m = message({ body: new Uint8Array([0, 255, 123, 34, 10]) });
      expect(await store.insertMessage(m)).toBe(true);
      expect(await store.insertMessage({ ...m, type: "auth" })).toBe(false);
      expect(await store.getMessage(ENV, m.id)).toEqual(m);
      expect(await store.getMessage(OTHER_ENV, m.id)).toBeNull();
      expect(await store.getMessage(ENV, newId("msg"))).toBeNull();
      // A connection's webhook URL override travels with its messages.
      const routed = message({ targetUrl: "https://hooks.example.test/c1" });
      await store.insertMessage(routed);
      expect(await store.getMessage(ENV, routed.id)).toEqual(routed);
    });

    test("lists newest first with every filter, and pages with a cursor", async () => {
      const a = message({ connectionId: "conn-a" });
      const b = message({ connectionId: "", providerConfigKey: "other-cal" });
      const c = message({ connectionId: "conn-b", type: "auth", status: "exhausted", nextAttemptAt: null });
      const d = message({ environmentId: OTHER_ENV });
      for (const m of [a, b, c, d]) await store.insertMessage(m);
      const ids = (list: MessageRecord[]) => list.map((m) => m.id);
      expect(ids(await store.listMessages(ENV, {}, 10))).toEqual([c.id, b.id, a.id]);
      expect(ids(await store.listMessages(ENV, { providerConfigKey: "other-cal" }, 10))).toEqual([b.id]);
      expect(ids(await store.listMessages(ENV, { connectionId: "conn-a" }, 10))).toEqual([a.id]);
      expect(ids(await store.listMessages(ENV, { unmatchedOnly: true }, 10))).toEqual([b.id]);
      expect(ids(await store.listMessages(ENV, { status: "exhausted" }, 10))).toEqual([c.id]);
      expect(ids(await store.listMessages(ENV, { type: "auth" }, 10))).toEqual([c.id]);
      expect(ids(await store.listMessages(ENV, {}, 2))).toEqual([c.id, b.id]);
      expect(ids(await store.listMessages(ENV, {}, 2, b.id))).toEqual([a.id]);
    });

    test("a claim takes a due message once until its round is recorded", async () => {
      const m = message();
      await store.insertMessage(m);
      const claimed = await store.claimMessage(m.id, T0, T0 + LEASE, "lease-1");
      expect(claimed).toMatchObject({ id: m.id, leaseToken: "lease-1", leaseUntil: T0 + LEASE });
      expect(await store.claimMessage(m.id, T0 + 1, T0 + LEASE, "lease-2")).toBeNull();
      // Once the claim runs out, another worker may take it (its holder crashed).
      expect(await store.claimMessage(m.id, T0 + LEASE, T0 + 2 * LEASE, "lease-3")).toMatchObject({
        leaseToken: "lease-3",
      });
    });

    test("refuses to claim a message that is not due, or final", async () => {
      const later = message({ nextAttemptAt: T0 + 1000 });
      const done = message({ status: "succeeded", nextAttemptAt: null });
      const exhausted = message({ status: "exhausted", nextAttemptAt: null });
      for (const m of [later, done, exhausted]) await store.insertMessage(m);
      expect(await store.claimMessage(later.id, T0, T0 + LEASE, "x")).toBeNull();
      expect(await store.claimMessage(later.id, T0 + 1000, T0 + LEASE, "x")).not.toBeNull();
      expect(await store.claimMessage(done.id, T0, T0 + LEASE, "x")).toBeNull();
      expect(await store.claimMessage(exhausted.id, T0, T0 + LEASE, "x")).toBeNull();
      expect(await store.claimMessage(newId("msg"), T0, T0 + LEASE, "x")).toBeNull();
    });

    test("records a round's attempts and outcome and clears the claim", async () => {
      const m = message();
      await store.insertMessage(m);
      await store.claimMessage(m.id, T0, T0 + LEASE, "lease-1");
      const first = attempt(m.id, { endpointId: "ep_1", at: T0 });
      const second = attempt(m.id, { endpointId: "ep_2", statusCode: 204, error: null, responseSnippet: "", at: T0 });
      const outcome = failedOutcome({ deliveredEndpointIds: ["ep_2"] });
      expect(await store.completeRound(m.id, "lease-1", [first, second], outcome)).toBe(true);
      expect(await store.getMessage(ENV, m.id)).toEqual({ ...m, ...outcome, leaseToken: null, leaseUntil: null });
      const attempts = await store.listAttempts(m.id);
      expect(attempts).toHaveLength(2);
      expect(attempts).toContainEqual(first);
      expect(attempts).toContainEqual(second);
    });

    test("keeps the attempts but not the outcome of a round whose claim was lost", async () => {
      const m = message();
      await store.insertMessage(m);
      await store.claimMessage(m.id, T0, T0 + LEASE, "lease-1");
      await store.replayMessage(ENV, m.id, T0 + 10);
      const late = attempt(m.id);
      expect(await store.completeRound(m.id, "lease-1", [late], failedOutcome())).toBe(false);
      expect((await store.getMessage(ENV, m.id))?.status).toBe("pending");
      expect(await store.listAttempts(m.id)).toEqual([late]);
    });

    test("lists deliverable messages earliest due first, with their claims", async () => {
      const late = message({ nextAttemptAt: T0 + 500 });
      const early = message({ nextAttemptAt: T0 + 100, status: "failed" });
      const done = message({ status: "succeeded", nextAttemptAt: null });
      for (const m of [late, early, done]) await store.insertMessage(m);
      await store.claimMessage(early.id, T0 + 100, T0 + LEASE, "held");
      expect(await store.listDeliverable(10)).toEqual([
        { id: early.id, nextAttemptAt: T0 + 100, leaseUntil: T0 + LEASE },
        { id: late.id, nextAttemptAt: T0 + 500, leaseUntil: null },
      ]);
      expect(await store.listDeliverable(1)).toHaveLength(1);
      expect(await store.findDeliverable(early.id)).toEqual({
        id: early.id,
        nextAttemptAt: T0 + 100,
        leaseUntil: T0 + LEASE,
      });
      expect(await store.findDeliverable(done.id)).toBeNull();
      expect(await store.findDeliverable(newId("msg"))).toBeNull();
    });

    test("counts an integration's messages that are not final, up to a limit", async () => {
      const ours = [message({}), message({ status: "failed" }), message({}), message({ status: "succeeded" })];
      const theirs = message({ providerConfigKey: "other" });
      for (const m of [...ours, theirs, message({ status: "exhausted" })]) await store.insertMessage(m);
      const key = ours[0]?.providerConfigKey ?? "";
      const env = ours[0]?.environmentId ?? "";
      expect(await store.countPending(env, key, 100)).toBe(3);
      expect(await store.countPending(env, key, 2)).toBe(2);
      expect(await store.countPending(env, "other", 100)).toBe(1);
      expect(await store.countPending("env_other", key, 100)).toBe(0);
    });

    test("a replay makes a message pending again with a fresh schedule", async () => {
      const m = message({
        status: "exhausted",
        attemptCount: 8,
        roundAttempts: 8,
        nextAttemptAt: null,
        lastError: "HTTP 500",
        deliveredEndpointIds: ["ep_1"],
        targetUrl: "https://hooks.example.test/c1",
      });
      await store.insertMessage(m);
      const replayed = await store.replayMessage(ENV, m.id, T0 + 50);
      expect(replayed).toEqual({
        ...m,
        status: "pending",
        attemptCount: 8,
        roundAttempts: 0,
        nextAttemptAt: T0 + 50,
        lastError: null,
        deliveredEndpointIds: [],
        updatedAt: T0 + 50,
      });
      expect(await store.replayMessage(OTHER_ENV, m.id, T0)).toBeNull();
    });

    test("replays every failed or exhausted message since a time, and only those", async () => {
      const old = message({ status: "exhausted", nextAttemptAt: null }, T0 - 10_000);
      const failed = message({ status: "failed" });
      const exhausted = message({ status: "exhausted", nextAttemptAt: null });
      const ok = message({ status: "succeeded", nextAttemptAt: null });
      const pending = message();
      const elsewhere = message({ environmentId: OTHER_ENV, status: "failed" });
      for (const m of [old, failed, exhausted, ok, pending, elsewhere]) await store.insertMessage(m);
      expect(await store.replayFailed(ENV, T0, T0 + 99)).toEqual([failed.id, exhausted.id].sort());
      expect((await store.getMessage(ENV, exhausted.id))?.status).toBe("pending");
      expect((await store.getMessage(ENV, old.id))?.status).toBe("exhausted");
      expect((await store.getMessage(ENV, ok.id))?.status).toBe("succeeded");
      expect((await store.getMessage(OTHER_ENV, elsewhere.id))?.status).toBe("failed");
    });

    test("the first notification to claim a channel id and message number owns it", async () => {
      expect(await store.findNotificationKey(ENV, "ch-1", 7)).toBeNull();
      expect(await store.claimNotificationKey(ENV, "ch-1", 7, "ntf_first", T0)).toBe("ntf_first");
      expect(await store.claimNotificationKey(ENV, "ch-1", 7, "ntf_second", T0 + 1)).toBe("ntf_first");
      expect(await store.claimNotificationKey(ENV, "ch-1", 7, "ntf_first", T0 + 2)).toBe("ntf_first");
      expect(await store.claimNotificationKey(ENV, "ch-1", 8, "ntf_third", T0)).toBe("ntf_third");
      expect(await store.claimNotificationKey(OTHER_ENV, "ch-1", 7, "ntf_other", T0)).toBe("ntf_other");
      expect(await store.findNotificationKey(ENV, "ch-1", 7)).toBe("ntf_first");
    });

    test("concurrent claims of one notification key agree on one owner", async () => {
      const owners = await Promise.all(
        ["a", "b", "c", "d"].map((s) => store.claimNotificationKey(ENV, "ch-race", 1, `ntf_${s}`, T0)),
      );
      expect(new Set(owners).size).toBe(1);
    });

    test("prunes notification keys received before a time", async () => {
      await store.claimNotificationKey(ENV, "ch-1", 1, "ntf_old", T0);
      await store.claimNotificationKey(ENV, "ch-1", 2, "ntf_new", T0 + 100);
      expect(await store.pruneNotificationKeys(T0 + 50)).toBe(1);
      expect(await store.findNotificationKey(ENV, "ch-1", 1)).toBeNull();
      expect(await store.findNotificationKey(ENV, "ch-1", 2)).toBe("ntf_new");
    });

    test("the first notification to claim a provider's dedupe key within an integration owns it", async () => {
      expect(await store.findDedupeKey(ENV, "mail", "m-1")).toBeNull();
      expect(await store.claimDedupeKey(ENV, "mail", "m-1", "ntf_first", T0)).toBe("ntf_first");
      expect(await store.claimDedupeKey(ENV, "mail", "m-1", "ntf_second", T0 + 1)).toBe("ntf_first");
      expect(await store.claimDedupeKey(ENV, "mail", "m-1", "ntf_first", T0 + 2)).toBe("ntf_first");
      // Scoped per integration and environment; apart from the (channel id, message number) keys.
      expect(await store.claimDedupeKey(ENV, "other", "m-1", "ntf_third", T0)).toBe("ntf_third");
      expect(await store.claimDedupeKey(OTHER_ENV, "mail", "m-1", "ntf_other", T0)).toBe("ntf_other");
      expect(await store.claimNotificationKey(ENV, "m-1", 0, "ntf_numbered", T0)).toBe("ntf_numbered");
      expect(await store.findDedupeKey(ENV, "mail", "m-1")).toBe("ntf_first");
      // Any characters: a key with separators does not collide with another integration's.
      expect(await store.claimDedupeKey(ENV, "a\nb", "c", "ntf_x", T0)).toBe("ntf_x");
      expect(await store.claimDedupeKey(ENV, "a", "b\nc", "ntf_y", T0)).toBe("ntf_y");
      const owners = await Promise.all(
        ["a", "b", "c"].map((s) => store.claimDedupeKey(ENV, "mail", "race", `ntf_${s}`, T0)),
      );
      expect(new Set(owners).size).toBe(1);
    });

    test("its inline claims, where it offers them, own keys as its claims do (the same records)", async () => {
      const inline = store.inlineClaims;
      if (!inline) return expect(store.inlineClaims).toBeUndefined();
      expect(inline.notificationKey(ENV, "ch-in", 1, "ntf_a", T0)).toBe("ntf_a");
      expect(inline.notificationKey(ENV, "ch-in", 1, "ntf_b", T0)).toBe("ntf_a");
      expect(await store.claimNotificationKey(ENV, "ch-in", 1, "ntf_c", T0)).toBe("ntf_a");
      expect(await store.claimDedupeKey(ENV, "mail", "in-1", "ntf_d", T0)).toBe("ntf_d");
      expect(inline.dedupeKey(ENV, "mail", "in-1", "ntf_e", T0)).toBe("ntf_d");
      expect(inline.dedupeKey(ENV, "other", "in-1", "ntf_f", T0)).toBe("ntf_f");
      expect(await store.findDedupeKey(ENV, "other", "in-1")).toBe("ntf_f");
    });

    test("prunes dedupe keys with the notification keys", async () => {
      await store.claimDedupeKey(ENV, "mail", "old", "ntf_old", T0);
      await store.claimDedupeKey(ENV, "mail", "new", "ntf_new", T0 + 100);
      await store.claimNotificationKey(ENV, "ch-1", 1, "ntf_old_numbered", T0);
      expect(await store.pruneNotificationKeys(T0 + 50)).toBe(2);
      expect(await store.findDedupeKey(ENV, "mail", "old")).toBeNull();
      expect(await store.findDedupeKey(ENV, "mail", "new")).toBe("ntf_new");
    });

    test("prunes final messages created before a time, with their attempts, oldest first; never pending or failed ones", async () => {
      // Ids made here, not by newId (monotonic within the process: an earlier, later id would win).
      const at = (n: number) => `${idTimeBound("msg", T0 + n)}${"a".repeat(16)}`;
      const old = [
        message({ id: at(1), createdAt: T0 + 1 }),
        message({ id: at(2), status: "exhausted", createdAt: T0 + 2 }),
        message({ id: at(3), status: "failed", createdAt: T0 + 3, nextAttemptAt: T0 + 1000 }),
        message({ id: at(4), status: "pending", createdAt: T0 + 4 }),
        message({ id: at(5), status: "succeeded", createdAt: T0 + 5 }),
      ];
      const recent = message({ id: at(100), status: "succeeded", createdAt: T0 + 100 });
      for (const m of [...old, recent]) await store.insertMessage(m);
      const oldest = old[0] as MessageRecord;
      const claimed = await store.claimMessage(oldest.id, T0, T0 + 10, "lease-1");
      expect(claimed).not.toBeNull();
      await store.completeRound(
        oldest.id,
        "lease-1",
        [
          {
            id: newId("att", T0),
            messageId: oldest.id,
            endpointId: "ep_1",
            url: "https://example.com/hook",
            statusCode: 200,
            latencyMs: 3,
            responseSnippet: "",
            error: null,
            at: T0,
            number: 1,
          },
        ],
        {
          status: "succeeded",
          attemptCount: 1,
          roundAttempts: 1,
          nextAttemptAt: null,
          lastError: null,
          deliveredEndpointIds: ["ep_1"],
          updatedAt: T0,
        },
      );
      expect(await store.listAttempts(oldest.id)).toHaveLength(1);

      expect(await store.pruneFinishedMessages(T0 + 50, 2)).toBe(2);
      expect(await store.getMessage(ENV, (old[0] as MessageRecord).id)).toBeNull();
      expect(await store.getMessage(ENV, (old[1] as MessageRecord).id)).toBeNull();
      expect(await store.listAttempts(oldest.id)).toEqual([]);
      expect(await store.getMessage(ENV, (old[4] as MessageRecord).id)).not.toBeNull();
      expect(await store.pruneFinishedMessages(T0 + 50, 100)).toBe(1);
      for (const m of [old[2], old[3], recent] as MessageRecord[])
        expect(await store.getMessage(ENV, m.id)).not.toBeNull();
      expect(await store.pruneFinishedMessages(T0 + 50, 100)).toBe(0);
    });

    test("hands out copies: changing a returned message changes nothing stored", async () => {
      const m = message({ deliveredEndpointIds: ["ep_1"] });
      await store.insertMessage(m);
      const got = (await store.getMessage(ENV, m.id)) as MessageRecord;
      got.deliveredEndpointIds.push("ep_2");
      (got.body as Uint8Array)[0] = 0;
      expect(await store.getMessage(ENV, m.id)).toEqual(m);
    });
  });
}
