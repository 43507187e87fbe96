import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { Database } from "bun:sqlite";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { create, type JsonObject, toBinary } from "@bufbuild/protobuf";
import { MetadataWriteMode, WriteMetadataRequestSchema } from "@junction/contracts/connection/v1/connection_service_pb";
import { MAX_JSON_DEPTH } from "@junction/platform";
import { startTestJunction, TEST_SECRET_KEY, type TestJunction } from "../support/embedded-junction.ts";

// A hundred requests, a few of them 100,000 levels deep.
setDefaultTimeout(60_000);

let j: TestJunction;
const KEY = "cal";
/** Deeper than the limit, and than what the RPC wire read back before its recursion limit was raised. */
const DEPTH_OLD = 50;

beforeAll(async () => {
  j = await startTestJunction();
  await j.api("POST", "/integrations", { unique_key: KEY, provider: "google-calendar" });
  await j.api("POST", "/connections", importBody("alice"));
});
afterAll(async () => {
  await j.close();
});

/** An object nested `levels` deep (`{}` is one level). */
function nested(levels: number): JsonObject {
  let v: JsonObject = { leaf: true };
  for (let i = 1; i < levels; i++) v = { a: v };
  return v;
}

/** JSON text of `{"<field>": <a value 100,000 levels deep>}`, too deep for any recursive walk. */
function hugeBody(field: string, open: "[" | '{"a":'): string {
  const close = open === "[" ? "]" : "}";
  return `{"${field}":${open.repeat(100_000)}1${close.repeat(100_000)}}`;
}

function importBody(id: string, extra: Record<string, unknown> = {}) {
  return {
    provider_config_key: KEY,
    connection_id: id,
    credentials: { type: "OAUTH2", access_token: `token-${id}` },
    ...extra,
  };
}

/** A route that stores a free-form JSON value, the top-level field it sits under, and a body carrying it. */
interface Row {
  method: string;
  path: string;
  field: string;
  /** The body whose `field` nests `levels` deep. */
  body: (levels: number) => Record<string, unknown>;
}

const ROWS: Row[] = [
  {
    method: "POST",
    path: "/connections",
    field: "metadata",
    body: (n) => importBody(`m${n}`, { metadata: nested(n) }),
  },
  {
    method: "POST",
    path: "/connections",
    field: "connection_config",
    body: (n) => importBody(`c${n}`, { connection_config: nested(n) }),
  },
  ...["/connection/metadata", "/connections/metadata"].flatMap((path) =>
    ["POST", "PATCH"].map((method) => ({
      method,
      path,
      field: "metadata",
      body: (n: number) => ({ connection_id: "alice", provider_config_key: KEY, metadata: nested(n) }),
    })),
  ),
  {
    method: "POST",
    path: "/connect/sessions",
    field: "integrations_config_defaults",
    // The value under the field: { cal: { connection_config: <two levels fewer> } }.
    body: (n) => ({
      end_user: { id: `user-${n}` },
      integrations_config_defaults: { [KEY]: { connection_config: nested(n - 2) } },
    }),
  },
];

describe("JSON nesting at the edge", () => {
  for (const row of ROWS) {
    test(`${row.method} ${row.path}: ${row.field} of ${MAX_JSON_DEPTH - 1} levels taken, ${MAX_JSON_DEPTH + 1} refused naming it`, async () => {
      const ok = await j.api(row.method, row.path, row.body(MAX_JSON_DEPTH - 1));
      expect(ok.status).toBeLessThan(300);
      const deep = await j.api(row.method, row.path, row.body(MAX_JSON_DEPTH + 1));
      expect(deep.status).toBe(400);
      expect(deep.body.error.code).toBe("invalid_body");
      expect(deep.body.error.errors).toEqual([
        { location: "body", path: row.field, message: `nests more than ${MAX_JSON_DEPTH} levels deep` },
      ]);
      expect((await j.api("GET", "/connections")).status).toBe(200);
    });
  }

  test("POST /action/trigger: an input of 31 levels reaches the action lookup, 33 is refused naming input", async () => {
    const headers = { "connection-id": "alice", "provider-config-key": KEY };
    const ok = await j.api("POST", "/action/trigger", { action_name: "nope", input: nested(31) }, headers);
    expect(ok.body.error.code).not.toBe("invalid_body");
    const deep = await j.api("POST", "/action/trigger", { action_name: "nope", input: nested(33) }, headers);
    expect(deep.status).toBe(400);
    expect(deep.body.error.errors[0]).toMatchObject({ location: "body", path: "input" });
  });

  test("PATCH /connections/{id} and POST /providers: a 33-level field is refused as too deep, not walked", async () => {
    const patch = await j.api("PATCH", `/connections/alice?provider_config_key=${KEY}`, { tags: nested(33) });
    expect(patch.body.error.errors[0]).toMatchObject({ path: "tags", message: expect.stringContaining("levels deep") });
    const provider = await j.api("POST", "/providers", { name: "deep-one", proxy: nested(33) });
    expect(provider.body.error.errors[0]).toMatchObject({
      path: "proxy",
      message: expect.stringContaining("levels deep"),
    });
  });

  test("/rpc/: WriteMetadata with 33 levels is refused in JSON and in binary; 31 levels are stored", async () => {
    const url = `${j.url}/rpc/junction.connection.v1.ConnectionService/WriteMetadata`;
    const call = (contentType: string, body: BodyInit) =>
      fetch(url, {
        method: "POST",
        headers: { authorization: `Bearer ${TEST_SECRET_KEY}`, "content-type": contentType },
        body,
      });
    const message = (metadata: JsonObject) => ({ providerConfigKey: KEY, connectionIds: ["alice"], metadata });
    const json = (metadata: JsonObject) => JSON.stringify({ ...message(metadata), mode: "METADATA_WRITE_MODE_SET" });
    const binary = (metadata: JsonObject) =>
      toBinary(
        WriteMetadataRequestSchema,
        create(WriteMetadataRequestSchema, { ...message(metadata), mode: MetadataWriteMode.SET }),
      );
    const ok = await call("application/json", json(nested(31)));
    expect(ok.status).toBe(200);
    for (const res of [
      await call("application/json", json(nested(33))),
      await call("application/proto", binary(nested(33))),
    ]) {
      expect(res.status).toBe(400);
      expect(res.headers.get("junction-error-code")).toBe("invalid_body");
      expect(((await res.json()) as { message: string }).message).toContain("metadata nests more than 32 levels");
    }
  });

  // Every documented route with a JSON body: a 100,000-deep value is a 400, and the process still answers.
  const doc = JSON.parse(readFileSync(join(import.meta.dir, "../../docs/openapi.json"), "utf8")) as {
    paths: Record<
      string,
      Record<
        string,
        {
          requestBody?: { content?: Record<string, unknown> };
          parameters?: { name: string; in: string; required?: boolean }[];
        }
      >
    >;
  };
  /** The route's required query parameters, each given a value (refused parameters are checked first). */
  const requiredQuery = (op: { parameters?: { name: string; in: string; required?: boolean }[] }) => {
    const names = (op.parameters ?? []).filter((p) => p.in === "query" && p.required).map((p) => `${p.name}=x`);
    return names.length > 0 ? `?${names.join("&")}` : "";
  };
  const jsonRoutes = Object.entries(doc.paths).flatMap(([pattern, ops]) =>
    Object.entries(ops)
      .filter(([, op]) => op.requestBody?.content?.["application/json"] !== undefined)
      .map(([method, op]) => ({
        method: method.toUpperCase(),
        path: `${pattern.replace(/\{\w+\}/g, "x")}${requiredQuery(op)}`,
      })),
  );

  test("every route with a JSON body refuses 100,000-deep arrays and objects with a 4xx", async () => {
    expect(jsonRoutes.length).toBeGreaterThan(15);
    for (const route of jsonRoutes) {
      for (const open of ["[", '{"a":'] as const) {
        const res = await j.api(route.method, route.path, hugeBody("deep", open), {
          "content-type": "application/json",
          // The headers the action route reads before its body.
          "connection-id": "alice",
          "provider-config-key": KEY,
        });
        // A route whose body limit is below the text's size refuses it unread.
        const expected = res.status === 413 ? "request_too_large" : "invalid_body";
        expect({ route: `${route.method} ${route.path}`, code: res.body?.error?.code }).toEqual({
          route: `${route.method} ${route.path}`,
          code: expected,
        });
        expect([400, 413]).toContain(res.status);
      }
    }
    expect((await j.api("GET", "/connections")).status).toBe(200);
  });
});

describe("nothing stored that cannot be read back", () => {
  test("a connection with metadata deeper than the limit is not created, and lists keep working", async () => {
    const res = await j.api("POST", "/connections", importBody("deep", { metadata: nested(DEPTH_OLD) }));
    expect(res.status).toBe(400);
    expect((await j.api("GET", `/connections/deep?provider_config_key=${KEY}`)).status).toBe(404);
    const list = await j.api("GET", "/connections");
    expect(list.status).toBe(200);
  });

  test("a row an older version stored with 50 levels of metadata reads back: lists work, the connection deletes", async () => {
    await j.api("POST", "/connections", importBody("old-deep"));
    const db = new Database(join(j.dataDir, "junction.sqlite"));
    db.query("UPDATE connections SET metadata = ? WHERE connection_id = 'old-deep'").run(
      JSON.stringify(nested(DEPTH_OLD)),
    );
    db.close();
    expect((await j.api("GET", "/connections")).status).toBe(200);
    const one = await j.api("GET", `/connections/old-deep?provider_config_key=${KEY}`);
    expect(one.body.metadata).toEqual(nested(DEPTH_OLD));
    expect((await j.api("DELETE", `/connections/old-deep?provider_config_key=${KEY}`)).status).toBe(200);
  });

  test("a caller of the service itself (a script's setMetadata) is refused past the limit; 32 levels read back", async () => {
    const write = (metadata: JsonObject) =>
      j.clients.connection.writeMetadata({
        providerConfigKey: KEY,
        connectionIds: ["alice"],
        metadata,
        mode: MetadataWriteMode.SET,
      });
    await expect(write(nested(40))).rejects.toThrow(/metadata nests more than 32 levels/);
    await write(nested(MAX_JSON_DEPTH));
    const list = await j.api("GET", "/connections");
    expect(list.status).toBe(200);
    const one = await j.api("GET", `/connections/alice?provider_config_key=${KEY}`);
    expect(one.status).toBe(200);
    expect(one.body.metadata).toEqual(nested(MAX_JSON_DEPTH));
  });
});
