import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { Nango } from "@nangohq/node";
import { TEST_SECRET_KEY } from "../support/embedded-junction.ts";
import { nangoProject, runNangoCli, writeProjectFiles } from "./nango-cli/nango-project.ts";
import { ALICE, CAL, useScriptsWorld } from "./scripts-kit.ts";

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

const SYNC = `import { createSync } from 'nango';
import * as z from 'zod';

const CalendarEntry = z.object({ id: z.string(), summary: z.string(), primary: z.boolean().optional() });

export default createSync({
    description: 'The calendars of the connection',
    version: '1.2.0',
    endpoints: [{ method: 'GET', path: '/calendars', group: 'Calendars' }],
    frequency: 'every hour',
    autoStart: true,
    syncType: 'full',
    scopes: ['https://www.googleapis.com/auth/calendar'],
    models: { CalendarEntry },
    exec: async (nango) => {
        await nango.trackDeletesStart('CalendarEntry');
        for await (const page of nango.paginate<{ id: string; summary: string; primary?: boolean }>({
            endpoint: '/calendar/v3/users/me/calendarList',
            paginate: { type: 'cursor', cursor_path_in_response: 'nextPageToken', cursor_name_in_request: 'pageToken', response_path: 'items' }
        })) {
            await nango.batchSave(page.map((c) => ({ id: c.id, summary: c.summary, primary: c.primary === true })), 'CalendarEntry');
        }
        await nango.trackDeletesEnd('CalendarEntry');
    }
});
`;
const ACTION = `import { createAction } from 'nango';
import * as z from 'zod';

export default createAction({
    description: 'Says whose calendar it is',
    version: '3.0.0',
    endpoint: { method: 'POST', path: '/whoami', group: 'Calendars' },
    input: z.object({ greeting: z.string().min(1) }),
    output: z.object({ greeting: z.string(), calendar: z.string() }),
    exec: async (nango, input) => {
        const res = await nango.get<{ id: string }>({ endpoint: '/calendar/v3/users/me/calendarList/primary' });
        return { greeting: input.greeting, calendar: res.data.id };
    }
});
`;
const INDEX_BOTH = "import './cal/syncs/calendars.js';\nimport './cal/actions/whoami.js';\n";

describe("nango deploy (Nango's CLI) into Junction", () => {
  test("a zero-yaml project deploys; its action runs through @nangohq/node; a destructive redeploy needs --allow-destructive", async () => {
    const w = await world();
    await w.connect("alice");
    const project = nangoProject({
      "index.ts": INDEX_BOTH,
      "cal/syncs/calendars.ts": SYNC,
      "cal/actions/whoami.ts": ACTION,
    });
    cleanups.push(project.remove);
    const cli = { hostport: w.j.url, secretKey: TEST_SECRET_KEY };

    const first = await runNangoCli(project.path, ["deploy", "dev", "--auto-confirm"], cli);
    expect(first.output).toContain("Successfully deployed the functions");
    expect(first.output).toContain("- calendars@v1.2.0");
    expect(first.output).toContain("- whoami@v3.0.0");
    expect(first.code).toBe(0);

    const scripts = (await w.api("GET", "/scripts")).body.data;
    expect(scripts.map((s: any) => [s.name, s.kind])).toEqual([
      ["calendars", "sync"],
      ["whoami", "action"],
    ]);
    expect(scripts[0]).toMatchObject({
      frequency: "every hour",
      auto_start: true,
      sync_type: "full",
      scopes: ["https://www.googleapis.com/auth/calendar"],
      endpoints: [{ method: "GET", path: "/calendars" }],
      models: { CalendarEntry: { type: "object", required: ["id", "summary"], additionalProperties: false } },
    });
    expect(scripts[1]).toMatchObject({
      input_schema: { type: "object", properties: { greeting: { type: "string", minLength: 1 } } },
    });

    const nango = new Nango({ secretKey: TEST_SECRET_KEY, host: w.j.url });
    expect(await nango.triggerAction(CAL, "alice", "whoami", { greeting: "hi" })).toEqual({
      greeting: "hi",
      calendar: ALICE,
    });

    // The sync gone from the project: it runs for a connection, so the CLI asks for --allow-destructive.
    writeProjectFiles(project.path, { "index.ts": "import './cal/actions/whoami.js';\n" });
    const refused = await runNangoCli(project.path, ["deploy", "dev", "--auto-confirm"], cli);
    expect(refused.code).not.toBe(0);
    expect(refused.output).toContain("--allow-destructive");
    expect(refused.output).toMatch(/cal → calendars/);
    expect((await w.api("GET", "/scripts")).body.data.map((s: any) => s.name)).toEqual(["calendars", "whoami"]);

    const allowed = await runNangoCli(project.path, ["deploy", "dev", "--auto-confirm", "--allow-destructive"], cli);
    expect(allowed.code).toBe(0);
    expect((await w.api("GET", "/scripts")).body.data.map((s: any) => s.name)).toEqual(["whoami"]);
  });
});
