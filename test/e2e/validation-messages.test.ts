import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { startTestJunction, type TestJunction } from "../support/embedded-junction.ts";

// Several hundred requests, one per probe.
setDefaultTimeout(120_000);

/** How validation libraries phrase their messages; none of it may reach a caller. */
const LIBRARY_PHRASINGS =
  /\bexpected\b|\breceived\b|Invalid input|Too big|Too small|Invalid (string|option|URL|type)|[<>]=\d|JSON Parse error|Unexpected (token|identifier|end)/i;
const LOCATIONS = ["query", "body", "header", "path"];

interface JsonSchema {
  type?: string;
  maxLength?: number;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
}
interface Parameter {
  name: string;
  in: "query" | "header" | "path";
  required?: boolean;
  schema?: JsonSchema;
}
interface Operation {
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
}

/** A request that sends one field a wrong value, and the field and location the answer should name. */
interface Probe {
  method: string;
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
  field: string;
  location: string;
}

const doc = JSON.parse(readFileSync(join(import.meta.dir, "../../docs/openapi.json"), "utf8")) as {
  paths: Record<string, Record<string, Operation>>;
};

/** Values of the wrong kind or too long for a schema: each must be refused. */
function wrongValues(schema: JsonSchema | undefined): unknown[] {
  const out: unknown[] = [];
  const type = schema?.type ?? schema?.anyOf?.[0]?.type;
  if (type === "string") out.push(12345);
  else if (type === "integer" || type === "number") out.push("abc", 1.5);
  else if (type === "boolean") out.push("maybe");
  else if (type === "array") out.push("x");
  else if (type === "object") out.push("x");
  if (schema?.maxLength !== undefined) out.push("x".repeat(schema.maxLength + 1));
  if (schema?.enum || schema?.const !== undefined) out.push("not-one-of-them");
  return out;
}

/** The same for a parameter, which is always sent as text. */
function wrongTexts(p: Parameter): string[] {
  const out: string[] = [];
  const type = p.schema?.type;
  if (type === "integer" || type === "number") out.push("abc", "-5");
  if (type === "boolean") out.push("maybe");
  if (p.schema?.maxLength !== undefined) out.push("x".repeat(p.schema.maxLength + 1));
  else if (type === "string" && p.in !== "path") out.push("x".repeat(5000));
  if (p.schema?.enum) out.push("not-one-of-them");
  return out;
}

function concrete(pattern: string, values: Record<string, string> = {}): string {
  return pattern.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(values[name] ?? "x"));
}

function probes(): Probe[] {
  const out: Probe[] = [];
  for (const [pattern, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      const verb = method.toUpperCase();
      // Every other required parameter is given, so that the answer is about the probed one.
      const required = (where: string) =>
        Object.fromEntries((op.parameters ?? []).filter((p) => p.required && p.in === where).map((p) => [p.name, "x"]));
      const query = (extra: Record<string, string> = {}) =>
        `?${new URLSearchParams({ ...required("query"), ...extra })}`;
      for (const p of op.parameters ?? []) {
        for (const text of wrongTexts(p)) {
          const base = { method: verb, field: p.name, location: p.in, headers: required("header") };
          if (p.in === "path") out.push({ ...base, path: concrete(pattern, { [p.name]: text }) + query() });
          else if (p.in === "query") out.push({ ...base, path: concrete(pattern) + query({ [p.name]: text }) });
          else out.push({ ...base, path: concrete(pattern) + query(), headers: { ...base.headers, [p.name]: text } });
        }
      }
      const given = { method: verb, path: concrete(pattern) + query(), headers: required("header") };
      const body = op.requestBody?.content?.["application/json"]?.schema;
      for (const [name, schema] of Object.entries(body?.properties ?? {})) {
        for (const value of wrongValues(schema)) {
          out.push({ ...given, body: { [name]: value }, field: name, location: "body" });
        }
        for (const [inner, innerSchema] of Object.entries(schema.properties ?? {})) {
          for (const value of wrongValues(innerSchema)) {
            const field = `${name}.${inner}`;
            out.push({ ...given, body: { [name]: { [inner]: value } }, field, location: "body" });
          }
        }
      }
      if (body) out.push({ ...given, body: [1], field: "", location: "body" });
      if (body) {
        const headers = { ...given.headers, "content-type": "application/json" };
        out.push({ ...given, headers, body: "{not json", field: "", location: "body" });
      }
    }
  }
  return out;
}

let j: TestJunction;
beforeAll(async () => {
  j = await startTestJunction();
});
afterAll(async () => {
  await j.close();
});

describe("validation errors across the documented routes", () => {
  test("speak Junction's words, and name the field and where it was", async () => {
    const all = probes();
    expect(all.length).toBeGreaterThan(200);
    const leaks: string[] = [];
    const unnamed: string[] = [];
    let refusals = 0;
    for (const probe of all) {
      const res = await j.api(probe.method, probe.path, probe.body, probe.headers);
      const where = `${probe.method} ${probe.path.slice(0, 80)} ${JSON.stringify(probe.body ?? probe.headers ?? "").slice(0, 80)}`;
      const error = res.body?.error as { code: string; message: string; errors?: any[] } | undefined;
      if (!error) continue;
      const messages = [error.message, ...(error.errors ?? []).map((e) => String(e.message))];
      for (const m of messages) if (LIBRARY_PHRASINGS.test(m)) leaks.push(`${where} → ${m}`);
      const entries = error.errors ?? [];
      for (const e of entries) {
        if (!LOCATIONS.includes(e.location) || typeof e.path !== "string" || e.path === "")
          unnamed.push(`${where} → ${JSON.stringify(e)}`);
      }
      if (!/^invalid_(body|query_params|headers|uri_params|json)$/.test(error.code)) continue;
      refusals++;
      const field = probe.field.toLowerCase();
      const named = entries.some(
        (e) => e.location === probe.location && String(e.path).toLowerCase().startsWith(field),
      );
      if (!named) unnamed.push(`${where} → ${res.text.slice(0, 300)}`);
    }
    expect({ leaks, unnamed }).toEqual({ leaks: [], unnamed: [] });
    // Most probes are refused by the edge's validation; the rest by the services (unknown ids and the like).
    expect(refusals).toBeGreaterThan(all.length / 2);
  });
});

describe("one field, one mistake", () => {
  test("a value of the wrong kind is named once, not also by the checks of the right kind", async () => {
    const res = await j.api("PUT", "/webhook-settings", { endpoints: "http://localhost:8080/" });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      code: "invalid_body",
      message: "Invalid request body: endpoints: must be a list, not a string",
      errors: [{ location: "body", path: "endpoints", message: "must be a list, not a string" }],
    });
  });

  test("an integration id of characters that cannot travel in a URL is refused at the edge like any field", async () => {
    for (const [method, path] of [
      ["POST", "/integrations"],
      ["PATCH", "/integrations/nobody"],
    ] as const) {
      const res = await j.api(method, path, { unique_key: "my cal/2", provider: "github" });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe("invalid_body");
      expect(res.body.error.errors).toContainEqual({
        location: "body",
        path: "unique_key",
        message: "must be 1-255 characters of letters, digits and . _ ~ : @ -",
      });
    }
  });
});
