import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { providerAdapter } from "@junction/providers";
import { startWebhookReceiver } from "../fake-upstream/index.ts";
import { waitFor } from "../support/wait-for.ts";
import { CLIENT, useOAuthWorld } from "./oauth-e2e-kit.ts";

// The spec's calendar story in one test: the three calendar templates deployed, a
// user authorizes, post-connection-creation creates a channel, the upstream's "sync" and "exists"
// notifications reach the customer, the daily renewal replaces the channel (old stopped, one active),
// and deleting the connection stops the channel: nothing more arrives.

const world = useOAuthWorld();
const ALICE = "alice@example.com";
const DAY = 24 * 3_600_000;
const TEMPLATES = providerAdapter("google-calendar")?.scriptTemplates?.directory ?? "";
const SCRIPTS = ["post-connection-creation", "watch-renewal", "pre-connection-deletion"] as const;

describe("the calendar story", () => {
  test("authorize → channel → sync and exists forwarded → renewal → deletion stops the channel", async () => {
    const w = await world();
    const { j, fake, clock } = w;
    await w.integration("cal");
    const receiver = startWebhookReceiver();
    try {
      expect((await j.api("PUT", "/webhook-settings", { endpoints: [receiver.url] })).status).toBe(200);
      // Deployed as a customer does, with the Scripts API.
      for (const name of SCRIPTS) {
        const source = readFileSync(join(TEMPLATES, `${name}.ts`), "utf8");
        const deployed = await j.api("POST", "/scripts", {
          provider_config_key: "cal",
          name,
          filename: `${name}.ts`,
          source,
        });
        expect(deployed.status).toBe(201);
      }
      const runs = async (query: string) =>
        (await j.api("GET", `/scripts/runs?provider_config_key=cal&${query}`)).body.data as {
          id: string;
          script_name: string;
          status: string;
          trigger: string;
        }[];
      const logsOf = async (id: string) =>
        ((await j.api("GET", `/scripts/runs/${id}`)).body.data.logs as { level: string; message: string }[]).map(
          (l) => `${l.level}: ${l.message}`,
        );

      // 1. The user authorizes: a new connection, post-connection-creation runs on its own.
      const page = await w.callback(await w.authorize());
      expect(page.code).toBe("connected");
      const [connectionId] = await w.connectionIds();
      if (!connectionId) throw new Error("no connection");
      const metadata = async () =>
        (await j.api("GET", `/connection/${connectionId}?provider_config_key=cal`)).body.metadata ?? {};
      const first = await waitFor("the channel ids in the metadata", async () => {
        const m = await metadata();
        return m.calendarChannelId ? m : null;
      });
      const channel1 = fake.state.channels.find((c) => c.id === first.calendarChannelId);
      expect(channel1).toMatchObject({
        state: "active",
        type: "webhook",
        address: (await j.api("GET", "/integrations/cal?include=webhook")).body.data.webhook_url,
        resourceId: first.calendarResourceId,
        calendarId: ALICE,
      });
      expect(channel1?.id.length).toBeLessThanOrEqual(64);
      expect(first.calendarWatchResourceUris).toEqual([channel1?.resourceUri]);

      // 2. The upstream's "sync", then "exists" after a change, forwarded to the customer with the connection.
      const forwards = () =>
        receiver.received.map((r) => JSON.parse(r.body)).filter((b) => b.type === "forward" && b.connectionId);
      await waitFor("the sync notification forwarded", () => forwards().length >= 1);
      expect(forwards()[0]).toMatchObject({
        from: "google-calendar",
        providerConfigKey: "cal",
        connectionId,
        payload: { "x-goog-channel-id": channel1?.id, "x-goog-resource-state": "sync", "x-goog-message-number": "1" },
      });
      fake.createEvent(ALICE, { summary: "Standup" });
      await waitFor("the exists notification forwarded", () => forwards().length >= 2);
      expect(forwards()[1]?.payload).toMatchObject({ "x-goog-resource-state": "exists", "x-goog-message-number": "2" });
      const registry = async () =>
        (await j.api("GET", `/channels?connection=${encodeURIComponent(connectionId)}`)).body.data as {
          id: string;
          state: string;
          last_message_number: number;
        }[];
      await waitFor("the registry to count both notifications", async () =>
        (await registry()).some((c) => c.id === channel1?.id && c.last_message_number === 2),
      );

      // 3. A day later the renewal sync runs on its schedule: a new channel, the old one stopped.
      await clock.advance(DAY);
      const second = await waitFor("the renewed channel ids", async () => {
        const m = await metadata();
        return m.calendarChannelId !== first.calendarChannelId ? m : null;
      });
      const [renewal] = await waitFor("the renewal run to finish", async () => {
        const done = (await runs("script=watch-renewal")).filter((r) => r.status !== "running");
        return done.length > 0 ? done : null;
      });
      expect(renewal).toMatchObject({ status: "succeeded", trigger: "schedule" });
      expect(await logsOf(renewal?.id ?? "")).toEqual([
        `info: renewed calendar channel: ${first.calendarChannelId} → ${second.calendarChannelId}`,
        `info: stopped calendar channel ${first.calendarChannelId}`,
      ]);
      expect(fake.state.channels.find((c) => c.id === channel1?.id)?.state).toBe("stopped");
      const live = fake.state.channels.filter((c) => c.state === "active");
      expect(live.map((c) => c.id)).toEqual([second.calendarChannelId]);
      await waitFor("the registry to show only the new channel active", async () => {
        const channels = await registry();
        const active = channels.filter((c) => c.state === "active").map((c) => c.id);
        const old = channels.find((c) => c.id === channel1?.id)?.state;
        return active.length === 1 && active[0] === second.calendarChannelId && old === "stopped";
      });
      // Only the new channel sends now. Its own "sync" may still be on its way to the receiver (forwards are
      // delivered after Junction has answered the upstream): the change's "exists" is waited for by name.
      await fake.settleNotifications();
      const before = forwards().length;
      expect(fake.changeCalendar(ALICE)).toBe(1);
      const exists = await waitFor("the exists on the new channel", () =>
        forwards()
          .slice(before)
          .find((f) => f.payload["x-goog-resource-state"] === "exists"),
      );
      expect(exists.payload["x-goog-channel-id"]).toBe(second.calendarChannelId);
      expect(forwards().filter((f) => f.payload["x-goog-channel-id"] === channel1?.id).length).toBe(2);

      // 4. The connection is deleted: pre-connection-deletion stops the channel; nothing more arrives.
      const deleted = await j.api("DELETE", `/connection/${connectionId}?provider_config_key=cal`);
      expect(deleted.status).toBeLessThan(300);
      expect(fake.state.channels.filter((c) => c.state === "active")).toEqual([]);
      const ofConnection = await runs(`connection_id=${encodeURIComponent(connectionId)}`);
      const byScript = (name: string) => ofConnection.filter((r) => r.script_name === name);
      expect(byScript("post-connection-creation").map((r) => [r.status, r.trigger])).toEqual([["succeeded", "event"]]);
      const [preDeletion] = byScript("pre-connection-deletion");
      expect(preDeletion).toMatchObject({ status: "succeeded", trigger: "event" });
      expect(await logsOf(preDeletion?.id ?? "")).toEqual([
        `info: stopped calendar channel ${second.calendarChannelId}`,
      ]);
      await waitFor("the registry to show no active channel", async () =>
        (await registry()).every((c) => c.state === "stopped"),
      );
      await fake.settleNotifications();
      const after = receiver.received.length;
      fake.createEvent(ALICE, { summary: "After deletion" });
      expect(fake.changeCalendar(ALICE)).toBe(0);
      await fake.settleNotifications();
      expect(receiver.received.length).toBe(after);

      // No token or secret in Junction's logs.
      const logs = j.logLines.join("\n");
      expect(logs).not.toContain(CLIENT.clientSecret);
      for (const token of fake.state.accessTokens.keys()) expect(logs).not.toContain(token);
      for (const token of fake.state.refreshTokens.keys()) expect(logs).not.toContain(token);
    } finally {
      await receiver.stop();
    }
  }, 60_000);
});
