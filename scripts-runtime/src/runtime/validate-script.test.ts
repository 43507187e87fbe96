import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ScriptRuntime } from "./script-runtime.ts";

let runtime: ScriptRuntime;
beforeAll(async () => {
  runtime = await ScriptRuntime.start({ poolSize: 1, declarationTimeoutMs: 1000 });
});
afterAll(() => runtime.close());

const refusal = async (source: string, filename = "script.ts") => {
  const result = await runtime.validateScript(source, filename);
  if (result.ok) throw new Error(`expected a refusal, got ${JSON.stringify(result.declaration)}`);
  return result.error;
};

describe("validateScript accepts", () => {
  test("a Nango-style sync with webhook subscriptions and an endpoint, in TypeScript", async () => {
    const source = `import { createSync } from "nango";
import type { NangoSync } from "nango";

interface Metadata { calendarChannelId?: string }

export default createSync({
  description: "Renews the calendar channel every day",
  version: "1.0.0",
  frequency: "every day",
  autoStart: false,
  webhookSubscriptions: ["*", "sync", "*"],
  endpoint: "GET /google-calendar/watch-renewal",
  exec: async (nango: NangoSync) => {
    const metadata = (await nango.getMetadata()) as Metadata;
    nango.log(metadata.calendarChannelId ?? "none");
  },
  onWebhook: async (nango: NangoSync, payload: unknown) => {
    nango.log("notified", payload);
  },
});
`;
    const result = await runtime.validateScript(source, "google-calendar/watch-renewal.ts");
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.declaration).toEqual({
      kind: "sync",
      frequency: "every day",
      frequencyMs: 86_400_000,
      autoStart: false,
      webhookSubscriptions: ["*", "sync"],
      hasOnWebhook: true,
      endpoints: [{ method: "GET", path: "/google-calendar/watch-renewal" }],
      description: "Renews the calendar channel every day",
      version: "1.0.0",
      models: {},
      syncType: "full",
      trackDeletes: false,
      scopes: [],
    });
    expect(result.compiled.filename).toBe("google-calendar/watch-renewal.ts");
    expect(result.compiled.code).not.toContain("interface");
    expect(result.compiled.sourceHash).toMatch(/^[0-9a-f]{64}$/);
  });

  test("a Nango-style action with JSON Schemas for its input and output", async () => {
    const input = { type: "object", properties: { title: { type: "string" } }, required: ["title"] };
    const result = await runtime.validateScript(
      `import { createAction, ActionError } from "nango";
export default createAction({
  description: "Creates an issue",
  endpoint: "POST /issues",
  input: ${JSON.stringify(input)},
  output: { type: "object" },
  exec: async (nango, input) => {
    if (!input.title) throw new ActionError({ reason: "no title" });
    return { id: 1 };
  },
});`,
      "create-issue.ts",
    );
    expect(result).toMatchObject({
      ok: true,
      declaration: {
        kind: "action",
        inputSchema: input,
        outputSchema: { type: "object" },
        endpoints: [{ method: "POST", path: "/issues" }],
        description: "Creates an issue",
        version: null,
      },
    });
  });

  test("Nango's endpoint object on an action: { method, path, group }", async () => {
    const result = await runtime.validateScript(
      `export default createAction({ endpoint: { method: "post", path: "/whoami", group: "Users" }, exec: async () => 1 });`,
      "whoami.ts",
    );
    expect(result).toMatchObject({ ok: true, declaration: { endpoints: [{ method: "POST", path: "/whoami" }] } });
    for (const endpoint of [`{ path: "/x" }`, `{ method: "FETCH", path: "/x" }`, `{ method: "GET", path: "x" }`]) {
      const refused = await runtime.validateScript(
        `export default createAction({ endpoint: ${endpoint}, exec: async () => 1 });`,
        "a.ts",
      );
      expect(refused).toMatchObject({ ok: false, error: { message: expect.stringContaining("endpoint must read") } });
    }
  });

  test("an action without schemas, as a plain object", async () => {
    const result = await runtime.validateScript(`export default { type: "action", exec: async () => 1 };`, "a.js");
    expect(result).toMatchObject({ ok: true, declaration: { kind: "action", inputSchema: null, outputSchema: null } });
  });

  test("a lifecycle script written as a plain object in JavaScript", async () => {
    const result = await runtime.validateScript(
      `export default { type: "on-event", event: "pre-connection-deletion", exec: async (nango) => {} };`,
      "stop-channel.js",
    );
    expect(result).toMatchObject({
      ok: true,
      declaration: { kind: "on-event", event: "pre-connection-deletion", description: null, version: null },
    });
  });

  test("createOnEvent as a global, Nango's endpoints list, and top-level await of a timer", async () => {
    const on = await runtime.validateScript(
      `await new Promise((r) => setTimeout(r, 1));
       export default createOnEvent({ event: "post-connection-creation", exec: async () => {} });`,
      "created.ts",
    );
    expect(on).toMatchObject({ ok: true, declaration: { kind: "on-event", event: "post-connection-creation" } });
    const sync = await runtime.validateScript(
      `export default createSync({ frequency: "12h", endpoints: [{ method: "post", path: "/events" }], exec: async () => {} });`,
      "events.ts",
    );
    expect(sync).toMatchObject({
      ok: true,
      declaration: { frequencyMs: 43_200_000, endpoints: [{ method: "POST", path: "/events" }] },
    });
  });
});

describe("validateScript refuses, with the exact reason, file and line", () => {
  test("a frequency that does not parse, at the frequency's line", async () => {
    const error = await refusal(
      `export default createSync({\n  exec: async () => {},\n  frequency: "every fortnight",\n});`,
    );
    expect(error).toEqual({
      message:
        'frequency "every fortnight": unknown unit "fortnight" (use ms, s, m, h, d, w, y or seconds, minutes, hours, days, weeks, years)',
      file: "script.ts",
      line: 3,
      column: 3,
    });
  });

  test("a sync's models with their JSON Schemas and trackDeletes are read; a model schema that does not compile is refused at its line", async () => {
    const ok = await runtime.validateScript(
      `export default createSync({ frequency: "1d", trackDeletes: true,
  models: { Issue: { type: "object", properties: { id: { type: "string" } }, required: ["id"] } },
  exec: async () => {} });`,
      "sync.ts",
    );
    expect(ok.ok && ok.declaration).toMatchObject({
      kind: "sync",
      trackDeletes: true,
      models: { Issue: { type: "object", properties: { id: { type: "string" } }, required: ["id"] } },
    });
    const error = await refusal(
      `export default createSync({
  exec: async () => {},
  frequency: "1d",
  models: { Issue: { $ref: "#/definitions/Nowhere" } },
});`,
    );
    expect(error.line).toBe(4);
    expect(error.message).toStartWith("models.Issue is not a schema Junction can check records with:");
    const notObject = await refusal(
      `export default createSync({ exec: async () => {}, frequency: "1d", models: { Issue: "string" } });`,
    );
    expect(notObject.message).toBe("models.Issue must be a zod schema (z.object({...})) or a JSON Schema");
  });

  test("an import of anything but nango, at its line", async () => {
    const error = await refusal(
      `import { createSync } from "nango";\n\nimport axios from "axios";\nexport default {};`,
    );
    expect(error).toMatchObject({ message: expect.stringContaining('import "axios" is not allowed'), line: 3 });
  });

  test.each([
    ["require", `const fs = require("node:fs");\nexport default {};`, 'require("node:fs") is not available in scripts'],
    [
      "import()",
      `\nconst m = await import("node:os");\nexport default {};`,
      'import("node:os") is not allowed in scripts',
    ],
    ["export from", `export * from "node:path";`, 'import "node:path" is not allowed'],
  ])("%s of a module, at its line", async (_, source, message) => {
    const error = await refusal(source);
    expect(error.message).toContain(message);
    expect(error.line).toBe(source.split("\n").findIndex((l) => l.includes("node:")) + 1);
  });

  test("a syntax error, at its line and column", async () => {
    const error = await refusal(
      `export default createSync({\n  frequency: "1d",\n  exec: async () => { const x: = 1; },\n});`,
    );
    expect(error).toMatchObject({ file: "script.ts", line: 3, column: 32 });
  });

  test("a top level that throws, at the throwing line", async () => {
    const error = await refusal(
      `const a = 1;\n\nif (a) throw new TypeError("no calendar configured");\nexport default {};`,
    );
    expect(error.message).toBe("evaluating the script failed: TypeError: no calendar configured");
    expect(error.line).toBe(3);
  });

  test("a top level that never finishes, within the short deadline", async () => {
    const started = performance.now();
    const error = await refusal(`while (true) {}\nexport default {};`);
    expect(error.message).toBe("evaluating the script's top level took longer than 1000 ms");
    expect(performance.now() - started).toBeLessThan(6000);
  });

  test.each([
    ["no default export", `export const sync = 1;`, "the script has no default export"],
    ["a default export that is a function", `export default async function () {}`, "the default export is a function"],
    ["no type", `export default { exec: async () => {} };`, "the declaration has no type"],
    ["an unknown type", `export default { type: "cron", exec: async () => {} };`, 'type "cron" is not a script kind'],
    [
      "an action whose input is not a schema object",
      `export default createAction({ input: "string", exec: async () => {} });`,
      "input must be a JSON Schema object",
    ],
    [
      "an action whose input schema cannot check anything",
      `export default createAction({ input: { type: "frob" }, exec: async () => {} });`,
      "input is not a JSON Schema Junction can check: Unsupported type: frob",
    ],
    [
      "an action with a sync's field",
      `export default createAction({ frequency: "1d", exec: async () => {} });`,
      'unknown field "frequency"',
    ],
    ["no exec", `export default createSync({ frequency: "1d" });`, "the declaration has no exec function"],
    ["no frequency", `export default createSync({ exec: async () => {} });`, "a sync needs a frequency"],
    [
      "a numeric frequency",
      `export default createSync({ frequency: 3600, exec: async () => {} });`,
      "frequency must be a string",
    ],
    [
      "subscriptions without onWebhook",
      `export default createSync({ frequency: "1d", webhookSubscriptions: ["*"], exec: async () => {} });`,
      "webhookSubscriptions needs an onWebhook function",
    ],
    [
      "subscriptions that are not strings",
      `export default createSync({ frequency: "1d", webhookSubscriptions: "*", exec: async () => {}, onWebhook: async () => {} });`,
      "webhookSubscriptions must be a list of non-empty strings",
    ],
    [
      "an endpoint without a method",
      `export default createSync({ frequency: "1d", endpoint: "/renewal", exec: async () => {} });`,
      'endpoint must read "METHOD /path"',
    ],
    [
      "an unknown field",
      `export default createSync({ frequency: "1d", runs: "every day", exec: async () => {} });`,
      'unknown field "runs"',
    ],
    [
      "an unsupported lifecycle event",
      `export default createOnEvent({ event: "validate-connection", exec: async () => {} });`,
      'event "validate-connection" is not supported',
    ],
  ])("%s", async (_, source, message) => {
    expect((await refusal(source)).message).toContain(message);
  });

  test("a file name that is not a relative .ts or .js path", async () => {
    for (const name of ["../escape.ts", "/etc/passwd.ts", "script.py", "a b.ts", ""]) {
      expect((await refusal("export default {};", name)).message).toContain("the file name must be a relative path");
    }
  });
});
