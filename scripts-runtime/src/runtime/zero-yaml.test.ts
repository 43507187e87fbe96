import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { RecordingHost } from "../../testing/recording-host.ts";
import { ScriptRuntime } from "./script-runtime.ts";

// Built by `nango deploy` (nango 0.71.10) from a zero-yaml project: a sync with a zod model and an
// action with zod input and output, as the CLI posts them in fileBody.js.
const fixture = (name: string) => readFileSync(new URL(`../compile/testing/${name}`, import.meta.url), "utf8");
const SYNC_BUNDLE = fixture("nango-cli-sync.cjs.txt");
const ACTION_BUNDLE = fixture("nango-cli-action.cjs.txt");

let runtime: ScriptRuntime;
beforeAll(async () => {
  runtime = await ScriptRuntime.start({ poolSize: 1, declarationTimeoutMs: 30_000 });
});
afterAll(() => runtime.close());

const TICKET_SCHEMA = {
  type: "object",
  properties: {
    id: { type: "string" },
    title: { type: "string" },
    done: { type: "boolean" },
    updated: { type: "string", format: "date-time" },
  },
  required: ["id", "title", "done"],
  additionalProperties: false,
};

describe("zero-yaml scripts", () => {
  test("a TypeScript sync importing zod declares its models as JSON Schemas, as Nango's CLI converts them", async () => {
    const source = `import { createSync } from "nango";
import * as z from "zod";
const Ticket = z.object({ id: z.string(), title: z.string(), done: z.boolean(), updated: z.date().optional() });
export default createSync({
  frequency: "every hour", syncType: "full", trackDeletes: true, scopes: ["tickets:read"],
  endpoints: [{ method: "GET", path: "/tickets", group: "Tickets" }],
  models: { Ticket }, metadata: z.object({ team: z.string() }),
  exec: async (nango) => {},
});`;
    const result = await runtime.validateScript(source, "demo/syncs/tickets.ts");
    if (!result.ok) throw new Error(result.error.message);
    expect(result.declaration).toMatchObject({
      kind: "sync",
      models: { Ticket: TICKET_SCHEMA },
      syncType: "full",
      trackDeletes: true,
      scopes: ["tickets:read"],
      endpoints: [{ method: "GET", path: "/tickets" }],
    });
  });

  test('Nango\'s CommonJS bundles (require("zod"), the default export rewritten) are read as declarations', async () => {
    const sync = await runtime.validateBundle(SYNC_BUNDLE, "demo/syncs/tickets.ts");
    if (!sync.ok) throw new Error(sync.error.message);
    expect(sync.declaration).toMatchObject({
      kind: "sync",
      frequency: "every hour",
      models: { Ticket: TICKET_SCHEMA },
    });
    const action = await runtime.validateBundle(ACTION_BUNDLE, "demo/actions/create-ticket.ts");
    if (!action.ok) throw new Error(action.error.message);
    expect(action.declaration).toMatchObject({
      kind: "action",
      scopes: ["tickets:write"],
      inputSchema: { type: "object", properties: { title: { type: "string", minLength: 1 } }, required: ["title"] },
      outputSchema: { type: "object", properties: { id: { type: "string" } } },
    });
  });

  test("a bundled action runs, with zod loaded in the sandbox", async () => {
    const checked = await runtime.validateBundle(ACTION_BUNDLE, "demo/actions/create-ticket.ts");
    if (!checked.ok) throw new Error(checked.error.message);
    const host = new RecordingHost();
    host.routes.set("/tickets", { status: 201, headers: {}, data: { id: 42 } });
    const result = await runtime.run({ script: checked.compiled, entry: "exec", input: { title: "Hi" }, host });
    expect(result.error).toBeUndefined();
    expect(result.output).toEqual({ id: "42" });
    expect(host.calls[0]?.args[0]).toMatchObject({ endpoint: "/tickets", method: "POST", data: { title: "Hi" } });
  });

  test("zod schemas work at run time inside the sandbox", async () => {
    const source = `import { createAction } from "nango";
import * as z from "zod";
const Input = z.object({ n: z.number().int().min(1) });
export default createAction({
  input: Input,
  exec: async (nango, input) => ({ ok: Input.safeParse(input).success, bad: Input.safeParse({ n: 0 }).success }),
});`;
    const result = await runtime.run({
      script: { source, filename: "a.ts" },
      entry: "exec",
      input: { n: 2 },
      host: new RecordingHost(),
    });
    expect(result.output).toEqual({ ok: true, bad: false });
  });

  test("a bundle requiring anything but zod and nango, or a model name Nango refuses, is refused", async () => {
    const other = await runtime.validateBundle('"use strict";\nconst fs = require("fs");\n', "x.ts");
    expect(other.ok).toBe(false);
    if (!other.ok) expect(other.error.message).toContain('require("fs") is not available in scripts');
    const badModel = SYNC_BUNDLE.replace("models: {\n    Ticket\n  }", "models: {\n    ticket: Ticket\n  }");
    const refused = await runtime.validateBundle(badModel, "demo/syncs/tickets.ts");
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect(refused.error.message).toContain('model name "ticket"');
  });
});
