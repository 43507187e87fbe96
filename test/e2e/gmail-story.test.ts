import { describe, expect, test } from "bun:test";
import { startWebhookReceiver } from "../fake-upstream/index.ts";
import { waitFor } from "../support/wait-for.ts";
import { ALICE, connectMailbox, SUBSCRIPTION, TOPIC } from "./gmail-kit.ts";
import { CLIENT, useOAuthWorld } from "./oauth-e2e-kit.ts";
import { expectNoSecretsLogged, forwardsOf, metadataOf, registryOf, scriptRuns } from "./push-stories-kit.ts";

// The Gmail story, as the calendar story: the three Gmail templates deployed,
// a user authorizes, post-connection-creation watches the inbox, a new mail makes the fake's Pub/Sub push
// a signed request to Junction, which checks the token against the fake's JWKS and forwards the documented
// payload; a redelivery is forwarded once; the daily renewal watches again; deleting the connection stops
// the watch. Pushes whose token fails a check are refused and never forwarded.

const world = useOAuthWorld();
const DAY = 24 * 3_600_000;
const WATCH_TTL = 7 * DAY;

describe("the Gmail story", () => {
  test("authorize → watch → signed push forwarded once → renewal → deletion stops the watch", async () => {
    const w = await world();
    const { j, fake, clock } = w;
    const receiver = startWebhookReceiver();
    try {
      const { connectionId, metadata } = await connectMailbox(w, receiver);
      const runs = scriptRuns(j, "mail");

      // 1. post-connection-creation watched the inbox: one watch, 7 days by the clock, its facts in metadata.
      const first = await metadata("the watch in the metadata", (m) => typeof m.gmailWatchExpiration === "string");
      const [watch] = fake.state.gmailWatches;
      expect(fake.state.gmailWatches).toHaveLength(1);
      expect(watch).toMatchObject({ email: ALICE, topicName: TOPIC, labelIds: ["INBOX"], state: "active" });
      expect(watch?.expiration).toBe(clock.now() + WATCH_TTL);
      expect(first).toMatchObject({
        gmailTopicName: TOPIC,
        gmailWatchExpiration: String(watch?.expiration),
        gmailWatchHistoryId: String(watch?.historyId),
      });
      // The proxied watch call is recorded in the channel registry: one watch per connection.
      const channel = `gmail-watch-${connectionId}`;
      await waitFor("the watch in the registry", async () => (await registryOf(j, connectionId)).length > 0);
      expect(await registryOf(j, connectionId)).toEqual([[channel, "active"]]);

      // 2. A mail arrives: a signed push, answered 200 once stored, forwarded with the documented payload.
      const mail = fake.receiveMail(ALICE);
      expect(mail.messageId).not.toBe("");
      const [push] = await fake.awaitPushes(1);
      expect(push).toMatchObject({ status: 200, meta: { messageId: mail.messageId, redelivery: false } });
      expect(push?.headers.authorization).toStartWith("Bearer ");
      const forwards = () => forwardsOf(receiver, "mail");
      await waitFor("the push forwarded", () => forwards().length >= 1);
      expect(forwards()[0]).toEqual({
        type: "forward",
        from: "google-mail",
        providerConfigKey: "mail",
        connectionId,
        payload: {
          emailAddress: ALICE,
          historyId: String(mail.historyId),
          messageId: mail.messageId,
          publishTime: new Date(clock.now()).toISOString(),
          subscription: SUBSCRIPTION,
        },
      });

      // 3. Pub/Sub redelivers the same message: acknowledged, not forwarded again.
      expect(fake.redeliverPush(mail.messageId)).toBe(1);
      const [, again] = await fake.awaitPushes(2);
      expect(again).toMatchObject({ status: 200, meta: { messageId: mail.messageId, redelivery: true } });
      expect(JSON.parse(again?.answer ?? "{}").data).toMatchObject({ duplicate: true });
      const marker = fake.receiveMail(ALICE);
      await waitFor("the next mail forwarded", () => forwards().some((f) => f.payload.messageId === marker.messageId));
      expect(forwards().filter((f) => f.payload.messageId === mail.messageId)).toHaveLength(1);

      // 4. A day later the renewal sync watches again: the mailbox's one watch is replaced, 7 days from now.
      await clock.advance(DAY);
      const renewed = await metadata("the renewed watch", (m) => m.gmailWatchExpiration !== first.gmailWatchExpiration);
      expect(renewed.gmailWatchExpiration).toBe(String(clock.now() + WATCH_TTL));
      const renewal = await runs.finished("watch-renewal");
      expect(renewal).toMatchObject({ status: "succeeded", trigger: "schedule" });
      expect(await runs.logs(renewal.id)).toEqual([
        `info: renewed the mailbox watch: expiration ${first.gmailWatchExpiration} → ${renewed.gmailWatchExpiration}`,
      ]);
      expect(fake.state.gmailWatches.map((v) => v.state)).toEqual(["stopped", "active"]);

      // 5. The connection is deleted: pre-connection-deletion stops the watch; a new mail publishes nothing.
      const deleted = await j.api("DELETE", `/connection/${connectionId}?provider_config_key=mail`);
      expect(deleted.status).toBeLessThan(300);
      expect(fake.state.gmailWatches.map((v) => v.state)).toEqual(["stopped", "stopped"]);
      const preDeletion = await runs.finished("pre-connection-deletion");
      expect(preDeletion).toMatchObject({ status: "succeeded", trigger: "event" });
      expect(await runs.logs(preDeletion.id)).toEqual(["info: stopped the mailbox watch"]);
      await waitFor("the registry's watch stopped", async () =>
        (await registryOf(j, connectionId)).every(([, state]) => state === "stopped"),
      );
      await fake.settlePushes();
      const pushed = fake.state.pushesSent.length;
      expect(fake.receiveMail(ALICE).messageId).toBe("");
      await fake.settlePushes();
      expect(fake.state.pushesSent).toHaveLength(pushed);

      expectNoSecretsLogged(j, [
        CLIENT.clientSecret,
        ...fake.state.accessTokens.keys(),
        ...fake.state.refreshTokens.keys(),
        ...fake.state.pushesSent.map((p) => p.headers.authorization ?? ""),
      ]);
    } finally {
      await receiver.stop();
    }
  }, 60_000);

  test("pushes whose token is missing, unsigned, badly signed, expired or for another audience are refused, never forwarded", async () => {
    const w = await world();
    const { j, fake } = w;
    const receiver = startWebhookReceiver();
    try {
      await connectMailbox(w, receiver);
      await metadataOf(
        j,
        "mail",
        (await w.connectionIds("mail"))[0] ?? "",
      )("the watch", (m) => typeof m.gmailWatchExpiration === "string");
      const faults = ["missing", "unsigned", "bad-signature", "expired", "wrong-audience"] as const;
      const refused: string[] = [];
      for (const fault of faults) {
        fake.spoilNextPushTokens(fault);
        refused.push(fake.receiveMail(ALICE).messageId);
      }
      const pushes = await fake.awaitPushes(faults.length);
      expect(pushes.map((p) => [p.meta.tokenFault, p.status])).toEqual([
        ["missing", 401],
        ["unsigned", 403],
        ["bad-signature", 403],
        ["expired", 403],
        ["wrong-audience", 403],
      ]);
      expect(pushes.map((p) => JSON.parse(p.answer).error.code)).toEqual([
        "pubsub_token_missing",
        ...Array(4).fill("pubsub_token_invalid"),
      ]);
      // A good push after them is forwarded, and it is the only one.
      const good = fake.receiveMail(ALICE);
      await waitFor("the good push forwarded", () =>
        forwardsOf(receiver, "mail").some((f) => f.payload.messageId === good.messageId),
      );
      expect(forwardsOf(receiver, "mail").map((f) => f.payload.messageId)).toEqual([good.messageId]);
      expect(refused).not.toContain(good.messageId);
      const warnings = j.logLines.filter((l) => l.includes("notification refused"));
      expect(warnings.length).toBeGreaterThanOrEqual(faults.length);
      expectNoSecretsLogged(j, pushes.map((p) => p.headers.authorization ?? "").filter(Boolean));
    } finally {
      await receiver.stop();
    }
  }, 60_000);
});
