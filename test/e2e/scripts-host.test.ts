import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { waitFor } from "../support/wait-for.ts";
import { ALICE, CAL, expectNoSecrets, syncSource, useScriptsWorld } from "./scripts-kit.ts";

// Runs start sandbox processes and wait on real time: slow under a loaded machine.
setDefaultTimeout(60_000);

const world = useScriptsWorld();

/** Deploys `body` as a sync, triggers it for alice, and returns the finished run with its logs. */
async function runOnce(w: Awaited<ReturnType<ReturnType<typeof useScriptsWorld>>>, body: string, name = "probe") {
  await w.deploy(name, syncSource(body));
  const res = await w.api("POST", "/sync/trigger", { provider_config_key: CAL, connection_id: "alice", syncs: [name] });
  if (res.status !== 200) throw new Error(res.text);
  const runs = await w.finishedRuns({ script: name }, (await w.runs({ script: name })).length);
  return runs.at(-1);
}

describe("scripts: the script API through the host", () => {
  test("proxy calls reach the upstream with the connection's fresh credentials, refreshed after a 401", async () => {
    const w = await world();
    await w.connect("alice");
    const before = w.fake.state.tokenRequests.refresh_token;
    w.fake.expireAccessTokens(ALICE);
    const run = await runOnce(
      w,
      `const res = await nango.get({ endpoint: "/calendar/v3/users/me/calendarList/primary" });
       nango.log(res.status, res.data.id, typeof res.headers["content-type"]);`,
    );
    expect(run.status).toBe("succeeded");
    expect(run.logs[0].message).toBe(`200 ${ALICE} string`);
    expect(w.fake.state.tokenRequests.refresh_token).toBe(before + 1);
    expectNoSecrets(w, JSON.stringify(run) + w.j.logLines.join("\n"));
  });

  test("a script catching a 404 sees its status and body; uncaught, they are on the run's error", async () => {
    const w = await world();
    await w.connect("alice");
    const caught = await runOnce(
      w,
      `try {
         await nango.post({ endpoint: "/calendar/v3/channels/stop", data: { id: "missing", resourceId: "r" } });
       } catch (err) {
         nango.log("caught", err.status, err.body.error.message, err.response.status);
       }`,
    );
    expect(caught.status).toBe("succeeded");
    expect(caught.logs[0].message).toMatch(/^caught 404 Channel 'missing' not found for project '\d+' 404$/);

    const uncaught = await runOnce(w, `await nango.get({ endpoint: "/status/404" });`, "uncaught");
    expect(uncaught.status).toBe("failed");
    expect(uncaught.error).toMatchObject({ name: "ScriptApiError", status: 404 });
    expect(uncaught.error.body).toBeTruthy();
  });

  test("proxy configs map to the /proxy call: params, JSON data, headers; unsafe endpoints are refused", async () => {
    const w = await world();
    await w.connect("alice");
    const run = await runOnce(
      w,
      `const res = await nango.post({
         endpoint: "/echo/a%40b?x=1",
         params: { y: 2, z: ["a", "b"] },
         data: { hello: "wörld" },
         headers: { "X-Custom": "yes" },
       });
       nango.log(res.data.method, res.data.path, res.data.query, res.data.headers["x-custom"], res.data.headers["content-type"], res.data.bodyLength);
       nango.log(res.data.headers.authorization.startsWith("Bearer ") ? "bearer" : "none");
       try { await nango.get({ endpoint: "/echo/../../integrations" }); }
       catch (err) { nango.log(err.status, err.code); }
       try { await nango.get({ endpoint: "/echo/h", headers: { "X-Injected": "a\\r\\nX-Evil: sk-header-secret" } }); }
       catch (err) { nango.log(err.status, err.code, err.message); }
       try { await nango.get({ endpoint: "/echo/h", headers: { "Bad Name": "v" } }); }
       catch (err) { nango.log(err.status, err.code); }`,
    );
    expect(run.status).toBe("succeeded");
    expect(run.logs.map((l: any) => l.message)).toEqual([
      "POST /echo/a%40b x=1&y=2&z=a&z=b yes application/json 18",
      "bearer",
      "400 invalid_proxy_path",
      expect.stringMatching(/^400 invalid_header .*"X-Injected" is not a valid HTTP header/),
      "400 invalid_header",
    ]);
    expect(JSON.stringify(run)).not.toContain("sk-header-secret");
    expectNoSecrets(w, JSON.stringify(run));
  });

  test("a Junction refusal (unknown connection) is catchable with Junction's status and error body", async () => {
    const w = await world();
    await w.connect("alice");
    const run = await runOnce(
      w,
      `try { await nango.get({ endpoint: "/echo/x", connectionId: "ghost" }); }
       catch (err) { nango.log(err.status, err.body.error.code); }
       try { await nango.updateMetadata({ calendarChannelId: 42 }); }
       catch (err) { nango.log(err.status, err.body.error.code); }`,
    );
    expect(run.logs.map((l: any) => l.message)).toEqual(["404 unknown_connection", "400 invalid_metadata"]);
  });

  test("metadata: get, set replaces, update merges; getConnection shows no token; getWebhookURL is the integration's", async () => {
    const w = await world();
    await w.connect("alice");
    const run = await runOnce(
      w,
      `nango.log(JSON.stringify(await nango.getMetadata()));
       await nango.setMetadata({ a: 1, b: 2 });
       await nango.updateMetadata({ b: 3, c: [1] });
       nango.log(JSON.stringify(await nango.getMetadata()));
       const c = await nango.getConnection();
       nango.log(c.connection_id, c.provider_config_key, JSON.stringify(Object.keys(c.credentials)));
       nango.log(await nango.getWebhookURL());`,
    );
    expect(run.status).toBe("succeeded");
    const integration = await w.api("GET", `/integrations/${CAL}?include=webhook`);
    expect(run.logs.map((l: any) => l.message)).toEqual([
      JSON.stringify({ emailAddress: ALICE }),
      JSON.stringify({ a: 1, b: 3, c: [1] }),
      `alice ${CAL} ["type","expires_at"]`,
      integration.body.data.webhook_url,
    ]);
  });

  test("a channel watch and stop made by a script reach the channel registry", async () => {
    const w = await world();
    await w.connect("alice");
    const run = await runOnce(
      w,
      `const address = await nango.getWebhookURL();
       const res = await nango.post({
         endpoint: "/calendar/v3/calendars/" + encodeURIComponent("${ALICE}") + "/events/watch",
         data: { id: "script-channel-1", type: "webhook", address, expiration: String(Date.now() + 7 * 86400000) },
       });
       await nango.updateMetadata({ calendarChannelId: res.data.id, calendarResourceId: res.data.resourceId });
       nango.log(res.status, res.data.id);`,
    );
    expect(run.logs[0].message).toBe("200 script-channel-1");
    const active = await waitFor("the channel in the registry", async () => {
      const res = await w.api("GET", `/channels?integration=${CAL}&state=active`);
      return res.body.data.find((c: any) => c.id === "script-channel-1");
    });
    expect(active).toMatchObject({ connection_id: "alice", state: "active" });

    const stop = await runOnce(
      w,
      `const m = await nango.getMetadata();
       const res = await nango.post({ endpoint: "/calendar/v3/channels/stop", data: { id: m.calendarChannelId, resourceId: m.calendarResourceId } });
       nango.log(res.status);`,
      "stopper",
    );
    expect(stop.logs[0].message).toBe("204");
    await waitFor("the channel to be stopped", async () => {
      const res = await w.api("GET", `/channels?integration=${CAL}`);
      return res.body.data.find((c: any) => c.id === "script-channel-1")?.state === "stopped";
    });
  });

  test("every run is recorded with its logs and levels, and runs are filtered and paged", async () => {
    const w = await world();
    await w.connect("alice");
    const run = await runOnce(
      w,
      `nango.log("plain"); nango.log("careful", { level: "warn" }); console.error("bad"); console.debug("dbg");`,
    );
    expect(run.logs.map((l: any) => [l.level, l.message])).toEqual([
      ["info", "plain"],
      ["warn", "careful"],
      ["error", "bad"],
      ["debug", "dbg"],
    ]);
    expect(run.logs.every((l: any) => typeof l.at === "string")).toBe(true);
    await runOnce(w, "throw new Error('x');", "failing");
    expect((await w.runs({ status: "failed" })).map((r) => r.script_name)).toEqual(["failing"]);
    expect((await w.runs({ trigger: "manual" })).length).toBe(2);
    const page1 = await w.api("GET", "/scripts/runs?limit=1");
    expect(page1.body.data).toHaveLength(1);
    expect(page1.body.data[0].script_name).toBe("failing");
    expect(page1.body.data[0].logs).toBeUndefined();
    const page2 = await w.api("GET", `/scripts/runs?limit=1&cursor=${page1.body.next_cursor}`);
    expect(page2.body.data[0].script_name).toBe("probe");
    expect((await w.api("GET", "/scripts/runs?status=sleepy")).body.error.code).toBe("invalid_query_params");
    expect((await w.api("GET", "/scripts/runs/run_01kzzzzzzzzzzzzzzzzzzzzzzz")).body.error.code).toBe("unknown_run");
    expect((await w.api("GET", "/scripts/runs?cursor=bogus")).body.error.code).toBe("invalid_id");
  });
});
