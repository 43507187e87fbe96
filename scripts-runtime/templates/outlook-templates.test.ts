import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { providerAdapter } from "@junction/providers";
import { type RunResult, ScriptRuntime } from "../src/index.ts";
import { UpstreamHost } from "./testing/upstream-host.ts";
import { expectChannelTemplates } from "./testing/template-declarations.ts";

// The Outlook calendar templates run in the real sandbox against a local stand-in
// for Graph's subscriptions API, which keeps its own list of subscriptions; each test checks it.

const TEMPLATE_DIR = providerAdapter("microsoft-outlook-calendar")?.scriptTemplates?.directory ?? "";
const TEMPLATES = ["post-connection-creation.ts", "subscription-renewal.ts", "pre-connection-deletion.ts"] as const;
type Template = (typeof TEMPLATES)[number];
const source = (name: Template) => readFileSync(join(TEMPLATE_DIR, name), "utf8");
const MAX_LIFETIME_MS = 10_080 * 60_000;
const WEBHOOK = "https://junction.example/webhook/env/outlook";

interface Subscription {
  id: string;
  resource: string;
  changeType: string;
  notificationUrl: string;
  lifecycleNotificationUrl: string;
  clientState: string;
  expirationMs: number;
  deleted: boolean;
}

/** Graph's POST/PATCH/DELETE /v1.0/subscriptions, as far as the templates use them. */
function startGraph() {
  const subscriptions: Subscription[] = [];
  let refuseCreate = false;
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const url = new URL(req.url);
      const live = (id: string) => subscriptions.find((s) => s.id === decodeURIComponent(id) && !s.deleted);
      const tooLong = (iso: unknown) =>
        typeof iso !== "string" || !(Date.parse(iso) > Date.now()) || Date.parse(iso) > Date.now() + MAX_LIFETIME_MS;
      const bad = (message: string) => Response.json({ error: { code: "ValidationError", message } }, { status: 400 });
      if (req.method === "POST" && url.pathname === "/v1.0/subscriptions") {
        if (refuseCreate) return bad("refused by the test");
        const body = (await req.json()) as Record<string, string>;
        if (tooLong(body.expirationDateTime)) return bad("expirationDateTime out of range");
        const sub: Subscription = {
          id: crypto.randomUUID(),
          resource: body.resource ?? "",
          changeType: body.changeType ?? "",
          notificationUrl: body.notificationUrl ?? "",
          lifecycleNotificationUrl: body.lifecycleNotificationUrl ?? "",
          clientState: body.clientState ?? "",
          expirationMs: Date.parse(body.expirationDateTime ?? ""),
          deleted: false,
        };
        subscriptions.push(sub);
        const { deleted: _d, expirationMs, ...rest } = sub;
        return Response.json({ ...rest, expirationDateTime: new Date(expirationMs).toISOString() }, { status: 201 });
      }
      const id = /^\/v1\.0\/subscriptions\/([^/]+)$/.exec(url.pathname)?.[1];
      const sub = id ? live(id) : undefined;
      if (!sub) return Response.json({ error: { code: "ResourceNotFound" } }, { status: 404 });
      if (req.method === "PATCH") {
        const body = (await req.json()) as Record<string, string>;
        if (tooLong(body.expirationDateTime)) return bad("expirationDateTime out of range");
        sub.expirationMs = Date.parse(body.expirationDateTime ?? "");
        return Response.json({ id: sub.id, expirationDateTime: body.expirationDateTime });
      }
      if (req.method === "DELETE") {
        sub.deleted = true;
        return new Response(null, { status: 204 });
      }
      return new Response(null, { status: 405 });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    subscriptions,
    active: () => subscriptions.filter((s) => !s.deleted),
    refuseCreations: () => {
      refuseCreate = true;
    },
    /** Graph removed it on its own (expired, or the user's permissions changed). */
    forget: (id: string) => {
      for (const s of subscriptions) if (s.id === id) s.deleted = true;
    },
    stop: () => server.stop(true),
  };
}

let runtime: ScriptRuntime;
beforeAll(async () => {
  runtime = await ScriptRuntime.start({ poolSize: 2, limits: { timeoutMs: 20_000 } });
});
afterAll(() => runtime.close());

let graph: ReturnType<typeof startGraph>;
let host: UpstreamHost;
beforeEach(() => {
  graph = startGraph();
  host = new UpstreamHost(graph.url, "graph-access-token", WEBHOOK);
});
afterEach(() => graph.stop());

const run = (name: Template): Promise<RunResult> =>
  runtime.run({
    script: { source: source(name), filename: `microsoft-outlook-calendar/${name}` },
    entry: "exec",
    host,
    context: { connectionId: "conn-outlook", providerConfigKey: "outlook" },
  });
const succeeded = async (name: Template): Promise<RunResult> => {
  const result = await run(name);
  if (result.status !== "succeeded") throw new Error(`${name}: ${result.status} ${JSON.stringify(result.error)}`);
  return result;
};
const errorLines = (r: RunResult) => r.logs.filter((l) => l.level === "error").map((l) => l.message);

describe("the Outlook templates as uploaded", () => {
  test("validate as the lifecycle scripts and the daily renewal sync", async () => {
    await expectChannelTemplates(
      runtime,
      "microsoft-outlook-calendar",
      TEMPLATES.map((name) => ({ name, source: source(name) })),
      "/microsoft-outlook-calendar/subscription-renewal",
    );
  });
});

describe("post-connection-creation", () => {
  test("subscribes to /me/events at the webhook URL and stores the id and clientState", async () => {
    host.metadata = { team: "blue" };
    const before = Date.now();
    await succeeded("post-connection-creation.ts");
    const [sub] = graph.active();
    expect(sub).toMatchObject({
      resource: "/me/events",
      changeType: "created,updated,deleted",
      notificationUrl: WEBHOOK,
      lifecycleNotificationUrl: WEBHOOK,
    });
    expect(sub?.clientState.length).toBeGreaterThanOrEqual(32);
    expect(sub?.expirationMs).toBeGreaterThan(before + MAX_LIFETIME_MS - 2 * 3_600_000);
    expect(host.metadata).toEqual({
      team: "blue",
      outlookSubscriptionId: sub?.id ?? "",
      outlookClientState: sub?.clientState ?? "",
    });
  });

  test("run again, it deletes the subscription the previous run left", async () => {
    await succeeded("post-connection-creation.ts");
    const first = host.metadata.outlookSubscriptionId;
    await succeeded("post-connection-creation.ts");
    expect(host.metadata.outlookSubscriptionId).not.toBe(first);
    expect(graph.active().map((s) => s.id)).toEqual([host.metadata.outlookSubscriptionId as string]);
  });

  test("when the id cannot be stored, the new subscription is deleted", async () => {
    host.failMetadataWrites = new Error("metadata store down");
    expect((await run("post-connection-creation.ts")).status).toBe("failed");
    expect(graph.subscriptions).toHaveLength(1);
    expect(graph.active()).toEqual([]);
  });
});

describe("subscription-renewal", () => {
  test("extends the stored subscription in place", async () => {
    await succeeded("post-connection-creation.ts");
    const id = host.metadata.outlookSubscriptionId as string;
    const sub = graph.active()[0] as Subscription;
    sub.expirationMs = Date.now() + 3_600_000;
    const result = await succeeded("subscription-renewal.ts");
    expect(result.output).toEqual({ outlookSubscriptionId: id, renewed: true, oldDeleted: false });
    expect(host.requests.at(-1)).toBe(`PATCH /v1.0/subscriptions/${id}`);
    expect(sub.expirationMs).toBeGreaterThan(Date.now() + MAX_LIFETIME_MS - 2 * 3_600_000);
    expect(graph.active()).toHaveLength(1);
  });

  test("when the renewal fails, creates a new one, stores it, then deletes the old (a failed delete only logged)", async () => {
    await succeeded("post-connection-creation.ts");
    const oldId = host.metadata.outlookSubscriptionId as string;
    graph.forget(oldId);
    const result = await succeeded("subscription-renewal.ts");
    const newId = host.metadata.outlookSubscriptionId as string;
    expect(newId).not.toBe(oldId);
    expect(graph.active().map((s) => s.id)).toEqual([newId]);
    expect(host.metadata.outlookClientState).toBe(graph.active()[0]?.clientState);
    expect(result.output).toEqual({ outlookSubscriptionId: newId, renewed: false, oldDeleted: false });
    expect(errorLines(result).join("\n")).toContain(oldId);
    expect(host.requests.slice(-3)).toEqual([
      `PATCH /v1.0/subscriptions/${oldId}`,
      "POST /v1.0/subscriptions",
      `DELETE /v1.0/subscriptions/${oldId}`,
    ]);
  });

  test("with nothing stored, creates one; a refused creation fails the run and keeps the metadata", async () => {
    await succeeded("subscription-renewal.ts");
    expect(graph.active()).toHaveLength(1);
    const stored = { ...host.metadata };
    graph.forget(stored.outlookSubscriptionId as string);
    graph.refuseCreations();
    const result = await run("subscription-renewal.ts");
    expect(result.status).toBe("failed");
    expect(host.metadata).toEqual(stored);
  });
});

describe("pre-connection-deletion", () => {
  test("deletes the stored subscription; with none stored it calls nothing; a failure does not fail the run", async () => {
    await succeeded("post-connection-creation.ts");
    expect((await succeeded("pre-connection-deletion.ts")).output).toEqual({ deleted: true });
    expect(graph.active()).toEqual([]);
    const again = await succeeded("pre-connection-deletion.ts");
    expect(again.output).toEqual({ deleted: false });
    expect(errorLines(again)).toHaveLength(1);
    host.metadata = {};
    const calls = host.requests.length;
    expect((await succeeded("pre-connection-deletion.ts")).output).toEqual({ deleted: false });
    expect(host.requests).toHaveLength(calls);
  });
});
