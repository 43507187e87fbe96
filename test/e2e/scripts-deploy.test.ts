import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { CAL, expectNoSecrets, onEventSource, syncSource, useScriptsWorld } from "./scripts-kit.ts";

// Runs start sandbox processes and wait on real time: slow under a loaded machine.
setDefaultTimeout(60_000);

const world = useScriptsWorld();

describe("scripts: upload and deploy", () => {
  test("a good sync deploys as version 1, then 2, listed with its declaration", async () => {
    const w = await world();
    const first = await w.deploy(
      "renewal",
      syncSource(
        "await nango.log('hi');",
        '\n  endpoint: "GET /google-calendar/watch-renewal",\n  description: "renews"',
      ),
    );
    expect(first).toMatchObject({
      provider_config_key: CAL,
      name: "renewal",
      version: 1,
      kind: "sync",
      frequency: "1d",
      frequency_ms: 86_400_000,
      auto_start: true,
      event: null,
      endpoints: [{ method: "GET", path: "/google-calendar/watch-renewal" }],
      description: "renews",
      filename: "renewal.ts",
      forward_webhooks_too: false,
    });
    expect(first.id).toMatch(/^scr_/);
    const second = await w.deploy("renewal", syncSource("await nango.log('v2');"), { filename: "calendar/renewal.ts" });
    expect(second).toMatchObject({ version: 2, filename: "calendar/renewal.ts" });

    const list = await w.api("GET", "/scripts");
    expect(list.status).toBe(200);
    expect(list.body.data.map((s: any) => [s.name, s.version])).toEqual([["renewal", 2]]);
    const one = await w.api("GET", `/scripts/${CAL}/renewal`);
    expect(one.status).toBe(200);
    expect(one.body.data.source).toContain("v2");
    expect(one.body.data.versions.map((v: any) => v.version)).toEqual([2, 1]);
    expect((await w.api("GET", `/scripts?provider_config_key=other`)).body.data).toEqual([]);
  });

  test("a script that does not compile is refused with file, line and column", async () => {
    const w = await world();
    const res = await w.api("POST", "/scripts", {
      provider_config_key: CAL,
      name: "broken",
      filename: "broken.ts",
      source: "export default createSync({\n  frequency: '1d',\n  exec: async (nango) => { const x = ; },\n});\n",
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("invalid_script");
    expect(res.body.error.message).toMatch(/^broken\.ts:3:\d+: /);
    expect(res.body.error.errors[0].path).toMatch(/^broken\.ts:3:\d+$/);
    expect((await w.api("GET", "/scripts")).body.data).toEqual([]);
  });

  test("imports other than nango are refused at their line", async () => {
    const w = await world();
    for (const [source, line] of [
      [`import { readFileSync } from "node:fs";\n${syncSource("readFileSync('/etc/passwd');")}`, 1],
      [`\n\nconst fs = require("fs");\n${syncSource("")}`, 3],
    ] as const) {
      const res = await w.api("POST", "/scripts", { provider_config_key: CAL, name: "sneaky", source });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe("invalid_script");
      expect(res.body.error.errors[0].path).toStartWith(`sneaky.ts:${line}:`);
    }
  });

  test("a frequency that does not parse is refused with the reason", async () => {
    const w = await world();
    const source = 'export default createSync({\n  frequency: "every fortnight",\n  exec: async () => {},\n});\n';
    const res = await w.api("POST", "/scripts", { provider_config_key: CAL, name: "bad-frequency", source });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("invalid_script");
    expect(res.body.error.message).toContain("fortnight");
    expect(res.body.error.errors[0].path).toStartWith("bad-frequency.ts:2:");
  });

  test("bad requests: unknown integration, bad name, missing source, unknown fields", async () => {
    const w = await world();
    const source = onEventSource("post-connection-creation", "");
    const cases: [unknown, number, string][] = [
      [{ provider_config_key: "nope", name: "a", source }, 404, "unknown_provider_config"],
      [{ provider_config_key: CAL, name: "has space", source }, 400, "invalid_request"],
      [{ provider_config_key: CAL, name: "-dash-first", source }, 400, "invalid_request"],
      [{ provider_config_key: CAL, name: "a" }, 400, "invalid_body"],
      [{ provider_config_key: CAL, name: "a", source, extra: 1 }, 400, "invalid_body"],
      [{ provider_config_key: CAL, name: "a", source, filename: "../escape.ts" }, 400, "invalid_script"],
    ];
    for (const [body, status, code] of cases) {
      const res = await w.api("POST", "/scripts", body);
      expect([res.status, res.body.error?.code]).toEqual([status, code]);
    }
  });

  test("remove deletes every version; the next upload does not reuse a number", async () => {
    const w = await world();
    await w.deploy("hook", onEventSource("post-connection-creation", ""));
    await w.deploy("hook", onEventSource("post-connection-creation", "await nango.log('2');"));
    const removed = await w.api("DELETE", `/scripts/${CAL}/hook`);
    expect(removed).toMatchObject({ status: 200, body: { data: { removed_versions: 2 } } });
    expect((await w.api("GET", `/scripts/${CAL}/hook`)).body.error.code).toBe("unknown_script");
    expect((await w.api("DELETE", `/scripts/${CAL}/hook`)).status).toBe(404);
    expect((await w.deploy("hook", onEventSource("pre-connection-deletion", ""))).version).toBe(3);
    const listed = (await w.api("GET", `/scripts?provider_config_key=${CAL}`)).body.data;
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ kind: "on-event", event: "pre-connection-deletion", frequency: null });
    expectNoSecrets(w, JSON.stringify(listed));
  });
});
