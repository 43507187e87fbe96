import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { ManualClock } from "@junction/platform";
import { waitFor } from "../support/wait-for.ts";
import { ALICE, CAL, expectNoSecrets, onEventSource, useScriptsWorld } from "./scripts-kit.ts";

// Runs start sandbox processes and wait on real time: slow under a loaded machine.
setDefaultTimeout(60_000);

const world = useScriptsWorld();

/** Reads the primary calendar through the proxy and stores its id: the spec's first step. */
const READ_PRIMARY = `
  const res = await nango.get({ endpoint: "/calendar/v3/users/me/calendarList/primary", retries: 0 });
  await nango.updateMetadata({ primaryCalendar: res.data.id });
  nango.log("primary calendar read", { level: "info" });
`;

describe("scripts: post-connection-creation", () => {
  test("runs after a new connection, through the proxy with its credentials, not after a re-authorization", async () => {
    const w = await world();
    await w.deploy("on-create", onEventSource("post-connection-creation", READ_PRIMARY));
    await w.connect("alice");
    const [run] = await w.finishedRuns({ connection_id: "alice" }, 1);
    expect(run).toMatchObject({
      script_name: "on-create",
      script_version: 1,
      trigger: "event",
      entry: "exec",
      attempt: 1,
      status: "succeeded",
      error: null,
    });
    expect(run.logs).toEqual([expect.objectContaining({ level: "info", message: "primary calendar read" })]);
    const connection = await w.api("GET", `/connection/alice?provider_config_key=${CAL}`);
    expect(connection.body.metadata).toMatchObject({ primaryCalendar: ALICE, emailAddress: ALICE });

    // Re-authorizing the same connection id is not a creation; a new connection afterwards is.
    await w.connect("alice");
    await w.connect("bob", "bob@example.com");
    await w.finishedRuns({ connection_id: "bob" }, 1);
    expect(await w.runs({ connection_id: "alice" })).toHaveLength(1);
    expectNoSecrets(w, JSON.stringify(run) + w.j.logLines.join("\n"));
  });

  test("is tried again after a transient failure (upstream unreachable), each attempt recorded", async () => {
    const clock = new ManualClock();
    const w = await world({ clock, baseUrl: () => "http://127.0.0.1:9" });
    await w.deploy("on-create", onEventSource("post-connection-creation", READ_PRIMARY));
    await w.connect("alice");
    const [failed] = await w.finishedRuns({ connection_id: "alice" }, 1);
    expect(failed).toMatchObject({ attempt: 1, status: "failed" });
    expect(failed.error).toMatchObject({
      name: "ScriptApiError",
      status: 502,
      body: { error: { code: "upstream_unreachable" } },
    });

    const fixed = await w.api("PATCH", `/integrations/${CAL}`, { upstream_overrides: { base_url: w.fake.url } });
    expect(fixed.status).toBe(200);
    // The retry is due one backoff step later (1 s); the proxy's cached resolution lapses after 5 s.
    await clock.advance(10_000);
    const runs = await w.finishedRuns({ connection_id: "alice" }, 2);
    expect(runs.map((r) => [r.attempt, r.status])).toEqual([
      [1, "failed"],
      [2, "succeeded"],
    ]);
    const connection = await w.api("GET", `/connection/alice?provider_config_key=${CAL}`);
    expect(connection.body.metadata.primaryCalendar).toBe(ALICE);
  });

  test("a script that throws is one recorded failed run, not a retry loop", async () => {
    const clock = new ManualClock();
    const w = await world({ clock });
    await w.deploy("on-create", onEventSource("post-connection-creation", 'throw new Error("no thanks");'));
    await w.connect("alice");
    const [run] = await w.finishedRuns({ connection_id: "alice" }, 1);
    expect(run).toMatchObject({ status: "failed", attempt: 1, error: { name: "Error", message: "no thanks" } });
    await clock.advance(3_600_000);
    await w.connect("bob", "bob@example.com");
    await w.finishedRuns({ connection_id: "bob" }, 1);
    expect(await w.runs({ connection_id: "alice" })).toHaveLength(1);
  });
});

describe("scripts: pre-connection-deletion", () => {
  test("runs before the deletion, while the connection and its metadata still exist", async () => {
    const w = await world();
    await w.deploy(
      "on-delete",
      onEventSource(
        "pre-connection-deletion",
        `const m = await nango.getMetadata();
         const c = await nango.getConnection();
         nango.log("deleting", m.emailAddress, c.connection_id, JSON.stringify(c.credentials));`,
      ),
    );
    await w.connect("alice");
    const deleted = await w.api("DELETE", `/connection/alice?provider_config_key=${CAL}`);
    expect(deleted.status).toBe(200);
    const runs = await w.runs({ connection_id: "alice" });
    expect(runs).toHaveLength(1);
    const run = (await w.api("GET", `/scripts/runs/${runs[0].id}`)).body.data;
    expect(run).toMatchObject({ status: "succeeded", trigger: "event" });
    expect(run.logs[0].message).toStartWith(`deleting ${ALICE} alice {"type":"OAUTH2","expires_at":"`);
    expect((await w.api("GET", `/connection/alice?provider_config_key=${CAL}`)).status).toBe(404);
    expectNoSecrets(w, JSON.stringify(run));
  });

  test("a failing or never-ending script is logged at error level and never blocks the deletion", async () => {
    const w = await world({ env: { JUNCTION_SCRIPTS_TIMEOUT_MS: "1500" } });
    await w.deploy("throws", onEventSource("pre-connection-deletion", 'throw new Error("cannot stop");'));
    await w.deploy("loops", onEventSource("pre-connection-deletion", "for (;;) {}"));
    await w.connect("alice");
    const deleted = await w.api("DELETE", `/connection/alice?provider_config_key=${CAL}`);
    expect(deleted.status).toBe(200);
    expect((await w.api("GET", `/connection/alice?provider_config_key=${CAL}`)).status).toBe(404);
    const runs = await w.runs({ connection_id: "alice" });
    expect(runs.map((r) => [r.script_name, r.status]).sort()).toEqual([
      ["loops", "timed_out"],
      ["throws", "failed"],
    ]);
    const errorLine = await waitFor("the error log line", () =>
      w.j.logLines.find((l) => l.includes("pre-connection-deletion script failed")),
    );
    expect(JSON.parse(errorLine)).toMatchObject({ level: "error", integration: CAL, connectionId: "alice" });
  });
});
