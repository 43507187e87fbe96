import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { providerAdapter } from "@junction/providers";
import {
  type FakeUpstream,
  startFakeUpstream,
  startWebhookReceiver,
  type WebhookReceiver,
} from "../../test/fake-upstream/index.ts";
import { type RunResult, ScriptRuntime } from "../src/index.ts";
import { UpstreamHost } from "./testing/upstream-host.ts";
import { expectChannelTemplates } from "./testing/template-declarations.ts";

// The calendar templates run in the real sandbox against the fake upstream (spec: Customer-side
// scripts). Each test checks the upstream's own view of its channels.

const ALICE = "alice@example.com";
const WEEK = 7 * 24 * 3_600_000;
const STOP = "POST /calendar/v3/channels/stop";
// The calendar provider's templates live with its adapter (packages/providers).
const TEMPLATE_DIR = providerAdapter("google-calendar")?.scriptTemplates?.directory ?? "";
const TEMPLATES = ["post-connection-creation.ts", "watch-renewal.ts", "pre-connection-deletion.ts"] as const;
type Template = (typeof TEMPLATES)[number];
const source = (name: Template) => readFileSync(join(TEMPLATE_DIR, name), "utf8");

let runtime: ScriptRuntime;
beforeAll(async () => {
  runtime = await ScriptRuntime.start({ poolSize: 2, limits: { timeoutMs: 20_000 } });
});
afterAll(() => runtime.close());

let fake: FakeUpstream;
let receiver: WebhookReceiver;
let host: UpstreamHost;
beforeEach(async () => {
  fake = await startFakeUpstream();
  receiver = startWebhookReceiver();
  host = new UpstreamHost(fake.url, fake.issueTokens({ email: ALICE }).accessToken, receiver.url);
});
afterEach(async () => {
  await fake.stop();
  await receiver.stop();
});

const run = (name: Template): Promise<RunResult> =>
  runtime.run({
    script: { source: source(name), filename: `google-calendar/${name}` },
    entry: "exec",
    host,
    context: { connectionId: "conn-template-test", providerConfigKey: "google-calendar" },
  });
const succeeded = async (name: Template): Promise<RunResult> => {
  const result = await run(name);
  if (result.status !== "succeeded") throw new Error(`${name}: ${result.status} ${JSON.stringify(result.error)}`);
  return result;
};
const channel = (id: unknown) => fake.state.channels.find((c) => c.id === id);
const active = () => fake.state.channels.filter((c) => c.state === "active");
const errorLines = (r: RunResult) => r.logs.filter((l) => l.level === "error").map((l) => l.message);

describe("the templates as uploaded", () => {
  test("validate as the declared lifecycle scripts and the daily renewal sync", async () => {
    await expectChannelTemplates(
      runtime,
      "google-calendar",
      TEMPLATES.map((name) => ({ name, source: source(name) })),
      "/google-calendar/watch-renewal",
    );
  });
});

describe("post-connection-creation", () => {
  test("watches the primary calendar and stores the channel's ids, keeping other metadata", async () => {
    host.metadata = { team: "blue", calendarWatchResourceUris: ["https://elsewhere.test/calendars/x/events"] };
    const before = Date.now();
    const result = await succeeded("post-connection-creation.ts");
    const after = Date.now();

    expect(host.requests).toEqual([
      "GET /calendar/v3/users/me/calendarList/primary",
      `POST /calendar/v3/calendars/${encodeURIComponent(ALICE)}/events/watch`,
    ]);
    const created = channel(host.metadata.calendarChannelId);
    expect(created).toMatchObject({ state: "active", type: "webhook", address: receiver.url, calendarId: ALICE });
    expect(created?.id.length).toBeLessThanOrEqual(64);
    // spec: expiration is now + 7 days, in milliseconds, by the sandbox's clock.
    expect(created?.expiration).toBeGreaterThanOrEqual(before + WEEK);
    expect(created?.expiration).toBeLessThanOrEqual(after + WEEK);
    expect(host.metadata).toEqual({
      team: "blue",
      calendarChannelId: created?.id ?? "",
      calendarResourceId: created?.resourceId ?? "",
      // The URI the upstream will send, exactly (spec: matching, rule 1).
      calendarWatchResourceUris: ["https://elsewhere.test/calendars/x/events", created?.resourceUri ?? ""],
    });
    expect(created?.resourceUri).toContain("/calendars/alice%40example.com/events");
    expect(result.output).toEqual({
      calendarChannelId: created?.id ?? "",
      calendarResourceId: created?.resourceId ?? "",
    });
    // The upstream confirms the channel with a "sync" notification to the address.
    const [sync] = await receiver.waitFor(1);
    expect(sync?.headers["x-goog-resource-state"]).toBe("sync");
    expect(sync?.headers["x-goog-channel-id"]).toBe(created?.id ?? "");
  });

  test("creates a new unique id on every run, and stops the channel a previous run left", async () => {
    await succeeded("post-connection-creation.ts");
    const first = host.metadata.calendarChannelId;
    await succeeded("post-connection-creation.ts");
    expect(host.metadata.calendarChannelId).not.toBe(first);
    expect(channel(first)?.state).toBe("stopped");
    expect(active().map((c) => c.id)).toEqual([host.metadata.calendarChannelId as string]);
    expect(host.metadata.calendarWatchResourceUris).toHaveLength(1);
  });

  test("a refused watch fails the run and stores nothing", async () => {
    host.webhookUrl = "http://not-https.example.test/webhook";
    const result = await run("post-connection-creation.ts");
    expect(result.status).toBe("failed");
    expect(result.error).toMatchObject({ name: "ScriptApiError", status: 400 });
    expect(host.metadata).toEqual({});
    expect(fake.state.channels).toEqual([]);
  });

  test("when the ids cannot be stored, the new channel is stopped so that none is left unaccounted for", async () => {
    host.failMetadataWrites = new Error("metadata store down");
    const result = await run("post-connection-creation.ts");
    expect(result.status).toBe("failed");
    expect(fake.state.channels).toHaveLength(1);
    expect(fake.state.channels[0]?.state).toBe("stopped");
    expect(host.requests.at(-1)).toBe(STOP);
  });
});

describe("watch-renewal", () => {
  test("creates a new channel, stops the old one, stores the new ids: one channel stays active", async () => {
    await succeeded("post-connection-creation.ts");
    const old = { ...host.metadata };
    host.requests.length = 0;
    const result = await succeeded("watch-renewal.ts");

    expect(host.requests).toEqual([
      "GET /calendar/v3/users/me/calendarList/primary",
      `POST /calendar/v3/calendars/${encodeURIComponent(ALICE)}/events/watch`,
      STOP,
    ]);
    expect(host.metadata.calendarChannelId).not.toBe(old.calendarChannelId);
    expect(channel(old.calendarChannelId)?.state).toBe("stopped");
    expect(active().map((c) => c.id)).toEqual([host.metadata.calendarChannelId as string]);
    expect(host.metadata.calendarResourceId).toBe(channel(host.metadata.calendarChannelId)?.resourceId ?? "");
    expect(host.metadata.calendarWatchResourceUris).toEqual(old.calendarWatchResourceUris);
    expect(result.output).toMatchObject({ oldChannelId: old.calendarChannelId, oldStopped: true });
    expect(errorLines(result)).toEqual([]);
  });

  test("a failed create leaves the old channel running and the stored ids unchanged", async () => {
    await succeeded("post-connection-creation.ts");
    const old = { ...host.metadata };
    host.requests.length = 0;
    host.webhookUrl = "http://not-https.example.test/webhook";
    const result = await run("watch-renewal.ts");

    expect(result.status).toBe("failed");
    expect(result.error).toMatchObject({ status: 400 });
    expect(host.requests).not.toContain(STOP);
    expect(fake.requestCount("/calendar/v3/channels/stop")).toBe(0);
    expect(host.metadata).toEqual(old);
    expect(active().map((c) => c.id)).toEqual([old.calendarChannelId as string]);
  });

  test("a failed stop is logged at error level and the new ids are still stored", async () => {
    await succeeded("post-connection-creation.ts");
    const old = { ...host.metadata };
    // The old channel is gone upstream already: its stop answers 404.
    await host.proxy({
      endpoint: "/calendar/v3/channels/stop",
      method: "POST",
      data: { id: old.calendarChannelId ?? "", resourceId: old.calendarResourceId ?? "" },
    });
    const result = await succeeded("watch-renewal.ts");

    const errors = errorLines(result);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(`could not stop calendar channel ${old.calendarChannelId}`);
    expect(errors[0]).toContain("status 404");
    expect(host.logs.filter((l) => l.level === "error")).toHaveLength(1);
    expect(host.metadata.calendarChannelId).not.toBe(old.calendarChannelId);
    expect(active().map((c) => c.id)).toEqual([host.metadata.calendarChannelId as string]);
    expect(result.output).toMatchObject({ oldStopped: false });
  });

  test("without stored ids it creates and stores a channel and stops nothing", async () => {
    await succeeded("watch-renewal.ts");
    expect(host.requests).not.toContain(STOP);
    expect(active().map((c) => c.id)).toEqual([host.metadata.calendarChannelId as string]);
  });

  test("with only one of the two ids it stops nothing and says why", async () => {
    host.metadata = { calendarChannelId: "orphan-id" };
    const result = await succeeded("watch-renewal.ts");
    expect(host.requests).not.toContain(STOP);
    expect(result.logs.some((l) => l.level === "warn" && l.message.includes("incomplete"))).toBe(true);
    expect(host.metadata.calendarChannelId).not.toBe("orphan-id");
  });
});

describe("pre-connection-deletion", () => {
  test("stops the stored channel: the upstream sends nothing more", async () => {
    await succeeded("post-connection-creation.ts");
    await receiver.waitFor(1);
    const result = await succeeded("pre-connection-deletion.ts");
    expect(result.output).toEqual({ stopped: true });
    expect(channel(host.metadata.calendarChannelId)?.state).toBe("stopped");
    expect(fake.changeCalendar(ALICE)).toBe(0);
    await fake.settleNotifications();
    expect(receiver.received).toHaveLength(1);
  });

  test("with missing ids it makes no upstream call at all", async () => {
    const partial: Record<string, string>[] = [{}, { calendarChannelId: "ch-1" }, { calendarResourceId: "res-1" }];
    for (const metadata of partial) {
      host.metadata = metadata;
      const result = await succeeded("pre-connection-deletion.ts");
      expect(result.output).toEqual({ stopped: false });
    }
    expect(host.requests).toEqual([]);
    expect(fake.state.requests).toHaveLength(0);
  });

  test("a failed stop is logged at error level and the run still succeeds", async () => {
    host.metadata = { calendarChannelId: "never-existed", calendarResourceId: "res-unknown" };
    const result = await succeeded("pre-connection-deletion.ts");
    expect(result.output).toEqual({ stopped: false });
    expect(errorLines(result)).toEqual([
      expect.stringContaining("could not stop calendar channel never-existed (status 404)"),
    ]);
  });
});
