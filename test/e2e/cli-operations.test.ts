import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { API_COMMANDS, runApiCommand } from "@junction/cli/commands/run-api-command";
import { TEST_SECRET_KEY } from "../support/embedded-junction.ts";
import { tempDir } from "../support/temp-dir.ts";
import { waitFor } from "../support/wait-for.ts";
import {
  type CustomerReceiver,
  googHeaders,
  notify,
  startCustomerReceiver,
  waitForMessages,
} from "./notifications-kit.ts";
import { ALICE, CONNECTION, MAIL, type ProxyHarness, startProxyHarness } from "./proxy-kit.ts";

// Script runs start sandbox processes: slow on a loaded machine.
setDefaultTimeout(60_000);

let h: ProxyHarness;
let rx: CustomerReceiver;
const files = tempDir();

beforeAll(async () => {
  // One delivery attempt at once, the next an hour later: a failed delivery stays failed for the test.
  h = await startProxyHarness({
    env: { JUNCTION_WEBHOOK_RETRY_SCHEDULE: "0s, 1h", JUNCTION_WEBHOOK_RETRY_JITTER: "0" },
  });
  rx = startCustomerReceiver();
});
afterAll(async () => {
  await h.close();
  await rx.stop();
  files.remove();
});

/** Runs `junction <args>` in this process against the test Junction; its exit code and what it wrote. */
async function junction(args: string[], env: Record<string, string> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runApiCommand(
    args,
    { JUNCTION_URL: h.junction.url, JUNCTION_SECRET_KEY: TEST_SECRET_KEY, ...env },
    { out: (l) => out.push(l), err: (l) => err.push(l) },
  );
  return { code, stdout: out.join("\n"), stderr: err.join("\n") };
}

describe("junction help", () => {
  test("lists every command, and each command's help its subcommands", async () => {
    const help = await junction(["--help"]);
    expect(help.code).toBe(0);
    for (const name of Object.keys(API_COMMANDS)) expect(help.stdout).toContain(`\n  ${name} `);
    const deliveries = await junction(["deliveries", "--help"]);
    for (const sub of ["list", "show", "replay", "replay-failed"])
      expect(deliveries.stdout).toContain(`junction deliveries ${sub}`);
    expect((await junction(["help", "scripts"])).stdout).toContain("junction scripts logs <run-id>");
  });

  test("is on PATH as `junction` through the cli package's bin, and says an unknown command", async () => {
    const root = join(import.meta.dir, "..", "..");
    const run = (args: string[]) =>
      Bun.spawnSync(["junction", ...args], {
        cwd: root,
        env: {
          PATH: `${join(root, "node_modules", ".bin")}:${process.env.PATH ?? ""}`,
          HOME: process.env.HOME ?? "/tmp",
        },
      });
    const help = run(["--help"]);
    expect(help.exitCode).toBe(0);
    expect(help.stdout.toString()).toStartWith("usage: junction <command>");
    const unknown = run(["frobnicate"]);
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr.toString()).toStartWith('junction: unknown command "frobnicate"');
  });

  test("usage errors exit 2 naming what is wrong, before anything is sent", async () => {
    const unknown = await junction(["connections", "lst"]);
    expect(unknown).toMatchObject({ code: 2 });
    expect(unknown.stderr).toStartWith('junction connections: unknown subcommand "connections lst"');
    const missing = await junction(["connections", "show", "alice"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toStartWith("junction connections: --integration is required");
    expect((await junction(["channels", "list", "--bogus"])).stderr).toContain("unknown option --bogus");
    const noKey = await junction(["integrations", "list"], { JUNCTION_SECRET_KEY: "" });
    expect(noKey).toMatchObject({ code: 2, stderr: expect.stringContaining("JUNCTION_SECRET_KEY") });
  });

  test("says when Junction cannot be reached (exit 3), and the API's code and message when it refuses (exit 1)", async () => {
    const down = await junction(["integrations", "list", "--url", "http://127.0.0.1:1"]);
    expect(down.code).toBe(3);
    expect(down.stderr).toStartWith("junction: cannot reach Junction at http://127.0.0.1:1");
    const wrongKey = await junction(["integrations", "list", "--secret-key", "jct_sk_wrong_0000000000000000000000"]);
    expect(wrongKey.code).toBe(1);
    expect(wrongKey.stderr).toMatch(/^junction: .+ \[unknown_account, HTTP 401\]$/);
    expect(wrongKey.stderr).not.toContain("    at "); // never a stack trace
  });
});

describe("junction integrations, connections, connect, metadata and proxy", () => {
  test("create, list, show and delete an integration", async () => {
    const created = await junction(["integrations", "create", "ops", "--provider", "google-calendar"]);
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(/^created ops \(google-calendar\); webhook URL http:\/\/.+\/webhook\/env_\w+\/ops$/);
    const list = await junction(["integrations", "list"]);
    expect(list.stdout.split("\n").map((l) => l.split(/\s+/)[0])).toContain("ops");
    const json = JSON.parse((await junction(["integrations", "list", "--json"])).stdout) as { unique_key: string }[];
    expect(json.map((i) => i.unique_key)).toContain("ops");
    expect(JSON.parse((await junction(["integrations", "show", "ops"])).stdout).provider).toBe("google-calendar");
    expect((await junction(["integrations", "delete", "ops"])).stdout).toBe("deleted ops");
    const gone = await junction(["integrations", "show", "ops"]);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain("HTTP 404]");
  });

  test("list and show connections, read and write metadata, call the upstream through the proxy", async () => {
    const list = await junction(["connections", "list", "--integration", MAIL]);
    expect(list.stdout.split("\n")).toHaveLength(1);
    expect(list.stdout).toStartWith(`${CONNECTION}  ${MAIL}`);
    const shown = JSON.parse((await junction(["connections", "show", CONNECTION, "--integration", MAIL])).stdout);
    expect(shown.connection_id).toBe(CONNECTION);

    expect((await junction(["metadata", "set", CONNECTION, "--integration", MAIL, '{"team":"a"}'])).code).toBe(0);
    const metaFile = join(files.path, "meta.json");
    writeFileSync(metaFile, '{"plan":"pro"}');
    expect((await junction(["metadata", "update", CONNECTION, "--integration", MAIL, `@${metaFile}`])).code).toBe(0);
    const meta = await junction(["metadata", "get", CONNECTION, "--integration", MAIL]);
    expect(JSON.parse(meta.stdout)).toEqual({ team: "a", plan: "pro" });
    const badJson = await junction(["metadata", "set", CONNECTION, "--integration", MAIL, "{nope"]);
    expect(badJson.code).toBe(2);
    expect(badJson.stderr).toContain("the metadata is not JSON");

    const args = ["--integration", MAIL, "--connection", CONNECTION];
    const proxied = await junction(["proxy", "GET", "/gmail/v1/users/me/profile", ...args]);
    expect(proxied).toMatchObject({ code: 0, stderr: "HTTP 200" });
    expect(JSON.parse(proxied.stdout).emailAddress).toBe(ALICE);
    const refused = await junction([
      "proxy",
      "GET",
      "/gmail/v1/users/me/profile",
      "--integration",
      MAIL,
      "--connection",
      "nobody",
    ]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("unknown_connection, HTTP 404]");
  });

  test("a connect link opens the connect page; a deleted connection is gone", async () => {
    const link = await junction(["connect", MAIL, "--end-user", "user-7", "--email", "user7@example.com"]);
    expect(link.code).toBe(0);
    // The connect link opens the Connect UI as a full page.
    expect(link.stdout).toMatch(/^http:\/\/.+\/connect\/\?session_token=\S+$/);
    expect(link.stderr).toMatch(/^expires at \d{4}-/);
    const page = await fetch(link.stdout.replace(/^http:\/\/localhost:/, "http://127.0.0.1:"));
    expect(page.status).toBe(200);

    await junction(["integrations", "create", "scratch", "--provider", "google-mail"]);
    await h.junction.api("POST", "/connections", {
      provider_config_key: "scratch",
      connection_id: "temp",
      credentials: { type: "OAUTH2", access_token: "at", refresh_token: "rt", expires_at: "2030-01-01T00:00:00Z" },
    });
    expect((await junction(["connections", "delete", "temp", "--integration", "scratch"])).stdout).toBe(
      "deleted scratch/temp",
    );
    const gone = await junction(["connections", "show", "temp", "--integration", "scratch"]);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain("[unknown_connection, HTTP 404]");
  });
});

describe("junction deliveries, channels and secret keys", () => {
  test("lists failed deliveries and replays every one with progress", async () => {
    rx.answer({ status: 500 });
    expect((await h.junction.api("PUT", "/webhook-settings", { endpoints: [rx.url] })).status).toBe(200);
    const env = (await h.junction.clients.connection.getEnvironment({})).environment?.id ?? "";
    const uri = "https://www.googleapis.com/calendar/v3/calendars/nobody%40example.com/events?alt=json";
    for (const n of [1, 2, 3]) {
      const res = await notify(h.junction, googHeaders(uri, { channelId: `cli-${n}` }), { env, key: "cal" });
      expect(res.status).toBe(200);
    }
    await waitForMessages(h.junction, 3, "status=failed");
    const list = await junction(["deliveries", "list", "--status", "failed"]);
    const ids = list.stdout.split("\n").map((l) => l.split(/\s+/)[0] as string);
    expect(ids).toHaveLength(3);
    expect(list.stdout).toContain("1 attempt");
    const shown = JSON.parse((await junction(["deliveries", "show", ids[0] as string])).stdout);
    expect(shown.attempts[0].status_code).toBe(500);

    rx.answer({ status: 200 });
    const replay = await junction(["deliveries", "replay", "--status", "failed"]);
    expect(replay.code).toBe(0);
    expect(replay.stdout.split("\n").sort()).toEqual(ids.map((id) => `replayed ${id}`).sort());
    expect(replay.stderr.split("\n")).toEqual([
      "replaying 3 items",
      expect.stringMatching(/^\[1\/3\] msg_/),
      expect.stringMatching(/^\[2\/3\] msg_/),
      expect.stringMatching(/^\[3\/3\] msg_/),
      "replaying: 3 done, 0 failed",
    ]);
    await waitFor("the replays to arrive", () => rx.succeeded().length >= 3);
    const partly = await junction(["deliveries", "replay", ids[0] as string, "msg_00000000000000000000000000"]);
    expect(partly.code).toBe(1);
    expect(partly.stderr).toContain("[2/2] failed: msg_00000000000000000000000000");
  });

  test("replay-failed replays every failed message without --since, takes a date alone, and refuses a bad one", async () => {
    rx.answer({ status: 500 });
    expect((await h.junction.api("PUT", "/webhook-settings", { endpoints: [rx.url] })).status).toBe(200);
    const env = (await h.junction.clients.connection.getEnvironment({})).environment?.id ?? "";
    const uri = "https://www.googleapis.com/calendar/v3/calendars/nobody%40example.com/events?alt=json";
    expect((await notify(h.junction, googHeaders(uri, { channelId: "rf-cli" }), { env, key: "cal" })).status).toBe(200);
    await waitForMessages(h.junction, 1, "status=failed");
    rx.answer({ status: 200 });
    const all = await junction(["deliveries", "replay-failed"]);
    expect(all).toMatchObject({ code: 0, stderr: "" });
    expect(all.stdout).toMatch(/^replayed [1-9]\d* messages?$/);
    const dated = await junction(["deliveries", "replay-failed", "--since", "2026-01-01"]);
    expect(dated.code).toBe(0);
    expect(dated.stdout).toMatch(/^replayed \d+ messages?$/);
    const bad = await junction(["deliveries", "replay-failed", "--since", "yesterday"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--since must be a date (2026-01-01) or a time with an offset");
  });

  test("channels list and stop-all; secret keys created, listed and revoked", async () => {
    expect((await junction(["channels", "list", "--integration", MAIL])).stdout).toBe("no channels");
    expect((await junction(["channels", "stop-all", MAIL])).stdout).toBe(
      `stopped 0 channels of ${MAIL} (0 already gone at the upstream)`,
    );
    const created = await junction(["secret-keys", "create", "--name", "ci"]);
    expect(created.stdout).toMatch(/^jct_sk_\S+$/);
    const id = /created (\S+) \(ci\)/.exec(created.stderr)?.[1] as string;
    expect((await junction(["integrations", "list"], { JUNCTION_SECRET_KEY: created.stdout })).code).toBe(0);
    expect((await junction(["secret-keys", "list"])).stdout).toMatch(
      new RegExp(`${id}\\s+ci\\s+\\S+\\s+\\S+\\s+active`),
    );
    expect((await junction(["secret-keys", "revoke", id])).stdout).toBe(`revoked ${id} (ci)`);
    expect((await junction(["integrations", "list"], { JUNCTION_SECRET_KEY: created.stdout })).code).toBe(1);
  });
});

describe("junction scripts and syncs", () => {
  test("deploys a directory with progress, triggers a sync, shows its runs and logs, removes a script", async () => {
    const dir = join(files.path, "scripts");
    mkdirSync(dir);
    for (const name of ["first", "second"]) {
      writeFileSync(
        join(dir, `${name}.ts`),
        `export default createSync({ frequency: "1d", exec: async (nango) => { await nango.log("hello from ${name}"); } });\n`,
      );
    }
    writeFileSync(join(dir, "notes.md"), "not a script");
    const deployed = await junction(["scripts", "deploy", MAIL, dir]);
    expect(deployed.code).toBe(0);
    expect(deployed.stdout.split("\n")).toEqual([
      `deployed ${MAIL}/first version 1 (sync, every 1d)`,
      `deployed ${MAIL}/second version 1 (sync, every 1d)`,
    ]);
    expect(deployed.stderr.split("\n")).toEqual([
      "deploying 2 items",
      "[1/2] first.ts",
      "[2/2] second.ts",
      "deploying: 2 done, 0 failed",
    ]);
    const listed = JSON.parse((await junction(["scripts", "list", MAIL, "--json"])).stdout) as { name: string }[];
    expect(listed.map((s) => s.name).sort()).toEqual(["first", "second"]);

    const triggered = await junction(["syncs", "trigger", MAIL, "first", "--connection", CONNECTION]);
    expect(triggered.code).toBe(0);
    const runId = /^started first: run (\S+)$/.exec(triggered.stdout)?.[1] as string;
    await waitFor(
      "the run to finish",
      async () => (await junction(["scripts", "runs", "--script", "first"])).stdout.includes("succeeded"),
      30_000,
    );
    expect((await junction(["scripts", "runs", "--integration", MAIL])).stdout).toContain(runId);
    const logs = await junction(["scripts", "logs", runId]);
    expect(logs.stdout).toMatch(/^\S+ info {2}hello from first$/);
    expect(logs.stderr).toBe(`run ${runId}: succeeded`);
    const status = await junction(["syncs", "status", MAIL, "--syncs", "first", "--json"]);
    expect(JSON.parse(status.stdout)[0]).toMatchObject({
      name: "first",
      connection_id: CONNECTION,
      latest_run_id: runId,
    });

    expect((await junction(["scripts", "remove", MAIL, "second"])).stdout).toBe(`removed ${MAIL}/second (1 version)`);
    expect((await junction(["scripts", "list", MAIL])).stdout).toBe(`${MAIL}/first\tversion 1\tsync, every 1d`);
    const missing = await junction(["syncs", "trigger", MAIL, "second"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("[unknown_sync, HTTP 404]");
  });
});
