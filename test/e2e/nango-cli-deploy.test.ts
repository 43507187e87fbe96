import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { Nango } from "@nangohq/node";
import { TEST_SECRET_KEY } from "../support/embedded-junction.ts";
import { nangoProject, runNangoCli, writeProjectFiles } from "./nango-cli/nango-project.ts";
import { startTicketsApi, TICKETS, TICKETS_SYNC as SYNC } from "./nango-cli/tickets-project.ts";
import { CAL, useScriptsWorld } from "./scripts-kit.ts";

// Nango's own CLI (npm `nango`, pinned in test/package.json) deploys a zero-yaml project into an
// embedded Junction: it type-checks and bundles with its own tools, then posts
// /sync/deploy/confirmation and /sync/deploy. Slow: the CLI type-checks the project (tens of
// seconds on a loaded machine).
setDefaultTimeout(600_000);

const world = useScriptsWorld();
const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const clean of cleanups.splice(0)) clean();
});

const ACTION = `import { createAction } from 'nango';
import * as z from 'zod';

export default createAction({
    description: 'Says whose account it is',
    version: '3.0.0',
    endpoint: { method: 'POST', path: '/whoami', group: 'Account' },
    input: z.object({ greeting: z.string().min(1) }),
    output: z.object({ greeting: z.string(), account: z.string() }),
    exec: async (nango, input) => {
        const res = await nango.get<{ id: string }>({ endpoint: '/me' });
        return { greeting: input.greeting, account: res.data.id };
    }
});
`;
const INDEX_BOTH = "import './cal/syncs/tickets.js';\nimport './cal/actions/whoami.js';\n";

describe("nango deploy (Nango's CLI) into Junction", () => {
  test("a zero-yaml project deploys; its action runs through @nangohq/node; the sync's records read back with listRecords; a destructive redeploy needs --allow-destructive", async () => {
    const api = startTicketsApi();
    cleanups.push(api.stop);
    const w = await world({ baseUrl: () => api.url });
    await w.connect("alice");
    const project = nangoProject({
      "index.ts": INDEX_BOTH,
      "cal/syncs/tickets.ts": SYNC,
      "cal/actions/whoami.ts": ACTION,
    });
    cleanups.push(project.remove);
    const cli = { hostport: w.j.url, secretKey: TEST_SECRET_KEY };

    const first = await runNangoCli(project.path, ["deploy", "dev", "--auto-confirm"], cli);
    expect(first.output).toContain("Successfully deployed the functions");
    expect(first.output).toContain("- tickets@v1.2.0");
    expect(first.output).toContain("- whoami@v3.0.0");
    expect(first.code).toBe(0);

    const scripts = (await w.api("GET", "/scripts")).body.data;
    expect(scripts.map((s: any) => [s.name, s.kind])).toEqual([
      ["tickets", "sync"],
      ["whoami", "action"],
    ]);
    expect(scripts[0]).toMatchObject({
      frequency: "every hour",
      auto_start: true,
      sync_type: "full",
      scopes: ["tickets:read"],
      endpoints: [{ method: "GET", path: "/tickets" }],
      models: { Ticket: { type: "object", required: ["id", "title", "done"], additionalProperties: false } },
    });
    expect(scripts[1]).toMatchObject({
      input_schema: { type: "object", properties: { greeting: { type: "string", minLength: 1 } } },
    });

    const nango = new Nango({ secretKey: TEST_SECRET_KEY, host: w.j.url });
    expect(await nango.triggerAction(CAL, "alice", "whoami", { greeting: "hi" })).toEqual({
      greeting: "hi",
      account: "acct-1",
    });

    // The sync runs in the sandbox with its zod model, paginating the API and saving every page;
    // listRecords reads the records back, page by page.
    TICKETS.splice(
      0,
      TICKETS.length,
      { id: 1, title: "one", done: true },
      { id: 2, title: "two" },
      { id: 3, title: "three" },
    );
    await nango.triggerSync(CAL, ["tickets"], "alice");
    const [run] = await w.finishedRuns({ script: "tickets" }, 1, 120_000);
    expect(run.error).toBeNull();
    expect(run.status).toBe("succeeded");
    expect(run.logs.map((l: any) => l.message)).toContain("saved 3 tickets");
    const read = { providerConfigKey: CAL, connectionId: "alice", model: "Ticket" };
    const page1 = await nango.listRecords<{ id: string; title: string; done: boolean }>({ ...read, limit: 2 });
    expect(page1.records.map((r) => [r.id, r.title, r.done, r._nango_metadata.last_action])).toEqual([
      ["1", "one", true, "ADDED"],
      ["2", "two", false, "ADDED"],
    ]);
    expect(page1.next_cursor).toBeTruthy();
    const rest = await nango.listRecords({ ...read, cursor: page1.next_cursor as string });
    expect(rest.records.map((r) => r.id)).toEqual(["3"]);
    expect(rest.next_cursor).toBeNull();

    // Upstream, ticket 2 is gone and ticket 1 renamed: the next run's trackDeletes marks 2 DELETED.
    TICKETS.splice(0, TICKETS.length, { id: 1, title: "uno", done: true }, { id: 3, title: "three" });
    await nango.triggerSync(CAL, ["tickets"], "alice");
    await w.finishedRuns({ script: "tickets" }, 2, 120_000);
    const changed = await nango.listRecords<{ id: string; title: string }>({ ...read, filter: "updated,deleted" });
    expect(changed.records.map((r) => [r.id, r.title, r._nango_metadata.last_action]).sort()).toEqual([
      ["1", "uno", "UPDATED"],
      ["2", "two", "DELETED"],
    ]);

    // The sync gone from the project: it runs for a connection, so the CLI asks for --allow-destructive.
    writeProjectFiles(project.path, { "index.ts": "import './cal/actions/whoami.js';\n" });
    const refused = await runNangoCli(project.path, ["deploy", "dev", "--auto-confirm"], cli);
    expect(refused.code).not.toBe(0);
    expect(refused.output).toContain("--allow-destructive");
    expect(refused.output).toMatch(/cal → tickets/);
    expect((await w.api("GET", "/scripts")).body.data.map((s: any) => s.name)).toEqual(["tickets", "whoami"]);

    const allowed = await runNangoCli(project.path, ["deploy", "dev", "--auto-confirm", "--allow-destructive"], cli);
    expect(allowed.code).toBe(0);
    expect((await w.api("GET", "/scripts")).body.data.map((s: any) => s.name)).toEqual(["whoami"]);
  });
});
