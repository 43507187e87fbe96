import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync } from "node:fs";
import { CAL, syncSource, useScriptsWorld } from "./scripts-kit.ts";

// POST /sync/deploy/confirmation and /sync/deploy with the body `nango deploy` (0.71.10) posts,
// its bundles captured from the CLI (scripts-runtime/src/compile/testing/). The real CLI is driven
// by nango-cli-deploy.test.ts.
setDefaultTimeout(120_000);

const world = useScriptsWorld();
const bundle = (name: string) =>
  readFileSync(new URL(`../../scripts-runtime/src/compile/testing/${name}`, import.meta.url), "utf8");
const TICKET = {
  type: "object",
  properties: { id: { type: "string" }, title: { type: "string" } },
  required: ["id", "title"],
};

function cliBody(extra: Record<string, unknown> = {}) {
  return {
    flowConfigs: [
      {
        syncName: "tickets",
        providerConfigKey: CAL,
        models: ["Ticket"],
        version: "1.0.0",
        runs: "every hour",
        track_deletes: false,
        auto_start: true,
        attributes: {},
        metadata: { description: "Tickets", scopes: [] },
        sync_type: "full",
        type: "sync",
        fileBody: { js: bundle("nango-cli-sync.cjs.txt"), ts: "// tickets.ts" },
        endpoints: [{ method: "GET", path: "/tickets", group: "Tickets" }],
        webhookSubscriptions: [],
        models_json_schema: { definitions: { Ticket: TICKET } },
        features: [],
      },
      {
        syncName: "create-ticket",
        providerConfigKey: CAL,
        models: ["ActionOutput_cal_createticket"],
        version: "2.0.0",
        runs: null,
        metadata: { description: "Creates a ticket", scopes: ["tickets:write"] },
        input: "ActionInput_cal_createticket",
        type: "action",
        fileBody: { js: bundle("nango-cli-action.cjs.txt"), ts: "// create-ticket.ts" },
        endpoints: [{ method: "POST", path: "/tickets", group: "Tickets" }],
        track_deletes: false,
        models_json_schema: {
          definitions: { ActionInput_cal_createticket: { type: "object" }, ActionOutput_cal_createticket: {} },
        },
        features: [],
      },
    ],
    onEventScriptsByProvider: [],
    deployMode: "all",
    reconcile: false,
    debug: false,
    sdkVersion: "0.71.10-zero",
    ...extra,
  };
}
const deployBody = (extra: Record<string, unknown> = {}) =>
  cliBody({ reconcile: true, nangoYamlBody: "", source: "repo", ...extra });
const EMPTY = {
  newSyncs: [],
  updatedSyncs: [],
  deletedSyncs: [],
  newActions: [],
  updatedActions: [],
  deletedActions: [],
  deletedModels: [],
  newOnEventScripts: [],
  updatedOnEventScripts: [],
  deletedOnEventScripts: [],
};

describe("nango deploy's endpoints", () => {
  test("the confirmation plans, the deploy stores both scripts with their declarations, deployMode all removes the rest", async () => {
    const w = await world();
    await w.deploy("renewal", syncSource("await nango.log('old');"));
    await w.connect("conn-1");

    const plan = await w.api("POST", "/sync/deploy/confirmation", cliBody());
    expect(plan.status).toBe(200);
    expect(plan.body).toEqual({
      ...EMPTY,
      newSyncs: [{ name: "tickets", providerConfigKey: CAL, auto_start: true, connections: 1 }],
      newActions: [{ name: "create-ticket", providerConfigKey: CAL }],
      deletedSyncs: [{ name: "renewal", providerConfigKey: CAL, auto_start: true, connections: 1 }],
    });
    expect((await w.api("GET", "/scripts")).body.data.map((s: any) => s.name)).toEqual(["renewal"]);

    const res = await w.api("POST", "/sync/deploy", deployBody());
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      {
        name: "tickets",
        version: "1.0.0",
        providerConfigKey: CAL,
        type: "sync",
        models: ["Ticket"],
        id: 1,
        runs: "every hour",
      },
      {
        name: "create-ticket",
        version: "2.0.0",
        providerConfigKey: CAL,
        type: "action",
        models: ["ActionOutput_cal_createticket"],
        id: 1,
        runs: null,
      },
    ]);
    const scripts = (await w.api("GET", "/scripts")).body.data;
    expect(scripts.map((s: any) => s.name)).toEqual(["create-ticket", "tickets"]);
    expect(scripts[1]).toMatchObject({
      kind: "sync",
      frequency: "every hour",
      auto_start: true,
      sync_type: "full",
      track_deletes: false,
      filename: `${CAL}/syncs/tickets.ts`,
      models: { Ticket: { type: "object", required: ["id", "title", "done"] } },
    });
    expect(scripts[0]).toMatchObject({ kind: "action", scopes: ["tickets:write"] });
    expect((await w.api("GET", `/scripts/${CAL}/tickets`)).body.data.source).toBe("// tickets.ts");

    // Deployed again: updates; a sync that disappears takes its model with it.
    const again = await w.api(
      "POST",
      "/sync/deploy/confirmation",
      cliBody({ flowConfigs: [cliBody().flowConfigs[1]] }),
    );
    expect(again.body).toMatchObject({
      updatedActions: [{ name: "create-ticket" }],
      deletedSyncs: [{ name: "tickets", connections: 1 }],
      deletedModels: ["Ticket"],
    });
    const single = await w.api("POST", "/sync/deploy/confirmation", cliBody({ deployMode: "single" }));
    expect(single.body).toMatchObject({ deletedSyncs: [], updatedSyncs: [{ name: "tickets" }] });
    // Nango's SyncDeploymentResult.id is a number: here the script's new version number.
    const second = await w.api("POST", "/sync/deploy", deployBody({ deployMode: "single" }));
    expect(second.body.map((d: any) => [d.name, d.id])).toEqual([
      ["tickets", 2],
      ["create-ticket", 2],
    ]);
  });

  test("bad input: a stable code each, and nothing stored", async () => {
    const w = await world();
    const post = (body: unknown) => w.api("POST", "/sync/deploy", body);
    const noSchema = deployBody();
    (noSchema.flowConfigs[0] as any).models_json_schema = { definitions: {} };
    const missing = await post(noSchema);
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({
      code: "invalid_body",
      errors: [expect.objectContaining({ path: "flowConfigs.0.models_json_schema" })],
    });
    expect(missing.body.error.message).toContain('model "Ticket"');

    const old = await post(deployBody({ sdkVersion: "0.58.1-zero" }));
    expect(old.status).toBe(400);
    expect(old.body.error.code).toBe("invalid_cli_version");
    expect(old.body.error.message).toContain("0.69.46");
    const yaml = await post(deployBody({ sdkVersion: "0.71.10-yaml" }));
    expect(yaml.body.error.code).toBe("invalid_cli_version");
    expect(yaml.body.error.message).toContain("migrate-to-zero-yaml");

    const malformed = await post({ ...deployBody(), flowConfigs: [{ syncName: "x" }] });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.code).toBe("invalid_body");

    const broken = deployBody();
    (broken.flowConfigs[1] as any).fileBody.js = '"use strict";\nmodule.exports = { default: { type: "action", exec: ';
    const refused = await post(broken);
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe("invalid_script");
    expect(refused.body.error.message).toContain(`${CAL}/actions/create-ticket.ts`);

    const unknown = deployBody();
    (unknown.flowConfigs[0] as any).providerConfigKey = "nope";
    expect((await post(unknown)).body.error.code).toBe("unknown_provider_config");
    expect((await w.api("GET", "/scripts")).body.data).toEqual([]);
  });

  test("POST /scripts takes the same zero-yaml file, zod and all", async () => {
    const w = await world();
    const source = `import { createSync } from "nango";
import * as z from "zod";
const Ticket = z.object({ id: z.string(), title: z.string() });
export default createSync({
  frequency: "every hour", syncType: "incremental", scopes: ["tickets:read"], models: { Ticket },
  exec: async (nango) => { await nango.batchSave([{ id: "1", title: "a" }], "Ticket"); },
});`;
    const script = await w.deploy("tickets", source, { filename: "cal/syncs/tickets.ts" });
    expect(script).toMatchObject({
      kind: "sync",
      sync_type: "incremental",
      track_deletes: false,
      scopes: ["tickets:read"],
      models: { Ticket: { type: "object", required: ["id", "title"], additionalProperties: false } },
    });
    const refused = await w.api("POST", "/scripts", {
      provider_config_key: CAL,
      name: "bad",
      source: source.replace('syncType: "incremental"', 'syncType: "incremental", trackDeletes: true'),
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toContain("trackDeletes is not supported for incremental syncs");
  });

  test("the CLI's telemetry is accepted without a key and dropped", async () => {
    const w = await world();
    const res = await fetch(`${w.j.url}/cli/telemetry`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ deviceId: "d", event: "cli:deploy", ephemeral: false }),
    });
    expect(res.status).toBe(204);
    expect((await w.api("POST", "/sync/deploy", deployBody(), { authorization: "" })).status).toBe(401);
  });
});
