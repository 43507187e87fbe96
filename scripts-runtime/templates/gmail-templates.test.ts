import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { providerAdapter } from "@junction/providers";
import { type RunResult, ScriptRuntime } from "../src/index.ts";
import { UpstreamHost } from "./testing/upstream-host.ts";
import { expectChannelTemplates } from "./testing/template-declarations.ts";

// The Gmail watch templates run in the real sandbox against a minimal local Gmail
// (profile, watch and stop). End-to-end against the shared fake upstream: test/e2e/gmail-story.test.ts.

const WEEK = 7 * 24 * 3_600_000;
const TOPIC = "projects/acme/topics/gmail-push";
const MAILBOX = "kim@example.com";
const TEMPLATE_DIR = providerAdapter("google-mail")?.scriptTemplates?.directory ?? "";
const TEMPLATES = ["post-connection-creation.ts", "watch-renewal.ts", "pre-connection-deletion.ts"] as const;
type Template = (typeof TEMPLATES)[number];
const source = (name: Template) => readFileSync(join(TEMPLATE_DIR, name), "utf8");

/** A Gmail of one mailbox: its profile, watch answers {historyId, expiration} (a week on), stop ends the watch. */
class MiniGmail {
  watch: { topicName: string; labelIds: string[]; expiration: number } | null = null;
  refuse = 0;
  historyId = 100;
  readonly server = Bun.serve({
    port: 0,
    fetch: async (req) => {
      const path = new URL(req.url).pathname;
      if (this.refuse)
        return Response.json({ error: { code: this.refuse, message: "refused" } }, { status: this.refuse });
      if (req.method === "GET" && path === "/gmail/v1/users/me/profile") {
        return Response.json({ emailAddress: MAILBOX, historyId: String(this.historyId) });
      }
      if (req.method === "POST" && path === "/gmail/v1/users/me/watch") {
        const body = (await req.json()) as { topicName?: string; labelIds?: string[] };
        if (!body.topicName) return Response.json({ error: { code: 400, message: "no topic" } }, { status: 400 });
        this.watch = { topicName: body.topicName, labelIds: body.labelIds ?? [], expiration: Date.now() + WEEK };
        this.historyId++;
        return Response.json({ historyId: String(this.historyId), expiration: String(this.watch.expiration) });
      }
      if (req.method === "POST" && path === "/gmail/v1/users/me/stop") {
        this.watch = null;
        return new Response(null, { status: 204 });
      }
      return Response.json({ error: { code: 404 } }, { status: 404 });
    },
  });
  get url(): string {
    return `http://127.0.0.1:${this.server.port}`;
  }
}

let runtime: ScriptRuntime;
beforeAll(async () => {
  runtime = await ScriptRuntime.start({ poolSize: 2, limits: { timeoutMs: 20_000 } });
});
afterAll(() => runtime.close());

let gmail: MiniGmail;
let host: UpstreamHost;
beforeEach(() => {
  gmail = new MiniGmail();
  host = new UpstreamHost(gmail.url, "access-token", "https://junction.example/webhook/env/mail");
});
afterEach(() => gmail.server.stop(true));

const run = (name: Template): Promise<RunResult> =>
  runtime.run({
    script: { source: source(name), filename: `google-mail/${name}` },
    entry: "exec",
    host,
    context: { connectionId: "conn-template-test", providerConfigKey: "google-mail" },
  });
const succeeded = async (name: Template): Promise<RunResult> => {
  const result = await run(name);
  if (result.status !== "succeeded") throw new Error(`${name}: ${result.status} ${JSON.stringify(result.error)}`);
  return result;
};

describe("the Gmail templates as uploaded", () => {
  test("are listed by the adapter and validate as the lifecycle scripts and the daily renewal sync", async () => {
    expect(providerAdapter("google-mail")?.scriptTemplates?.names).toEqual(TEMPLATES.map((t) => t.replace(".ts", "")));
    await expectChannelTemplates(
      runtime,
      "google-mail",
      TEMPLATES.map((name) => ({ name, source: source(name) })),
      "/google-mail/watch-renewal",
    );
  });
});

describe("post-connection-creation", () => {
  test("watches the inbox on the connection's topic and stores the watch and the address, keeping other metadata", async () => {
    host.metadata = { team: "blue", gmailTopicName: TOPIC };
    const result = await succeeded("post-connection-creation.ts");
    expect(host.requests).toEqual(["GET /gmail/v1/users/me/profile", "POST /gmail/v1/users/me/watch"]);
    expect(gmail.watch).toMatchObject({ topicName: TOPIC, labelIds: ["INBOX"] });
    const stored = {
      gmailTopicName: TOPIC,
      gmailWatchHistoryId: "101",
      gmailWatchExpiration: String(gmail.watch?.expiration),
      emailAddress: MAILBOX,
    };
    expect(host.metadata).toEqual({ team: "blue", ...stored });
    expect(result.output).toEqual(stored);
  });

  test("without a topic (the template's placeholder) it fails before calling Gmail", async () => {
    const result = await run("post-connection-creation.ts");
    expect(result.status).toBe("failed");
    expect(JSON.stringify(result.error)).toContain("no Pub/Sub topic");
    expect(host.requests).toEqual([]);
    expect(host.metadata).toEqual({});
  });

  test("a refused watch fails the run and stores nothing", async () => {
    host.metadata = { gmailTopicName: TOPIC };
    gmail.refuse = 403;
    const result = await run("post-connection-creation.ts");
    expect(result.status).toBe("failed");
    expect(result.error).toMatchObject({ name: "ScriptApiError", status: 403 });
    expect(host.metadata).toEqual({ gmailTopicName: TOPIC });
  });
});

describe("watch-renewal", () => {
  test("watches again and stores the new expiration and history id", async () => {
    host.metadata = { gmailTopicName: TOPIC };
    await succeeded("post-connection-creation.ts");
    await succeeded("watch-renewal.ts");
    expect(host.requests.slice(1)).toEqual(["POST /gmail/v1/users/me/watch", "POST /gmail/v1/users/me/watch"]);
    expect(host.metadata.gmailWatchHistoryId).toBe("102");
    expect(host.metadata.emailAddress).toBe(MAILBOX);
    expect(host.metadata.gmailWatchExpiration).toBe(String(gmail.watch?.expiration));
  });

  test("a refused renewal fails the run and leaves the stored watch as it was", async () => {
    host.metadata = { gmailTopicName: TOPIC };
    await succeeded("post-connection-creation.ts");
    const before = { ...host.metadata };
    gmail.refuse = 500;
    const result = await run("watch-renewal.ts");
    expect(result.status).toBe("failed");
    expect(host.metadata).toEqual(before);
  });
});

describe("pre-connection-deletion", () => {
  test("stops the mailbox's watch", async () => {
    host.metadata = { gmailTopicName: TOPIC };
    await succeeded("post-connection-creation.ts");
    const result = await succeeded("pre-connection-deletion.ts");
    expect(result.output).toEqual({ stopped: true });
    expect(gmail.watch).toBeNull();
    expect(host.requests.at(-1)).toBe("POST /gmail/v1/users/me/stop");
  });

  test("a failed stop is logged at error level and does not fail the deletion", async () => {
    gmail.refuse = 401;
    const result = await succeeded("pre-connection-deletion.ts");
    expect(result.output).toEqual({ stopped: false });
    expect(result.logs.filter((l) => l.level === "error").map((l) => l.message)).toEqual([
      expect.stringContaining("could not stop the mailbox watch (status 401)"),
    ]);
  });
});
