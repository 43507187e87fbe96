import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { rawHttpRequest } from "../fake-upstream/index.ts";
import { startTestJunction, TEST_SECRET_KEY, type TestJunction } from "../support/embedded-junction.ts";
import { tempDir } from "../support/temp-dir.ts";

let j: TestJunction;
beforeAll(async () => {
  j = await startTestJunction();
});
afterAll(async () => {
  await j.close();
});

describe("gateway edge", () => {
  test("health needs no key", async () => {
    const res = await fetch(`${j.url}/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ result: "ok" });
  });

  test("a missing, malformed or unknown secret key gets 401 with distinct codes", async () => {
    const missing = await j.api("GET", "/integrations", undefined, { authorization: "" });
    expect(missing.status).toBe(401);
    expect(missing.body.error.code).toBe("missing_auth_header");
    const malformed = await j.api("GET", "/integrations", undefined, { authorization: `Basic ${TEST_SECRET_KEY}` });
    expect(malformed.status).toBe(401);
    expect(malformed.body.error.code).toBe("malformed_auth_header");
    const wrong = await j.api("GET", "/integrations", undefined, {
      authorization: "Bearer jct_sk_wrong_wrong_wrong_wrong",
    });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.code).toBe("unknown_account");
  });

  test("several secret keys work; a revoked one stops working; keys are stored hashed", async () => {
    const created = await j.api("POST", "/secret-keys", { name: "ci" });
    expect(created.status).toBe(201);
    const second: string = created.body.data.secret_key;
    expect(second).toMatch(/^jct_sk_/);
    const asSecond = { authorization: `Bearer ${second}` };
    expect((await j.api("GET", "/integrations", undefined, asSecond)).status).toBe(200);
    expect((await j.api("GET", "/integrations")).status).toBe(200);

    const listed = await j.api("GET", "/secret-keys");
    expect(listed.body.data).toHaveLength(2);
    expect(listed.text).not.toContain(second);

    const revoked = await j.api("DELETE", `/secret-keys/${created.body.data.id}`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.data.revoked_at).not.toBeNull();
    const after = await j.api("GET", "/integrations", undefined, asSecond);
    expect(after.status).toBe(401);

    const db = new Database(join(j.dataDir, "junction.sqlite"), { readonly: true });
    const rows = JSON.stringify(db.query("SELECT * FROM secret_keys").all());
    db.close();
    expect(rows).not.toContain(second);
    expect(rows).not.toContain(TEST_SECRET_KEY);
    expect(j.logLines.join("\n")).not.toContain(second);
  });

  test("unknown routes get 404 and wrong methods 405 with Allow", async () => {
    const unknown = await j.api("GET", "/nothing/here");
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe("not_found");
    const wrongMethod = await j.api("PUT", "/integrations");
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get("allow")).toContain("GET");
    expect(wrongMethod.body.error.code).toBe("method_not_allowed");
  });

  test("malformed percent-encoding in a path is a 4xx, not a 500", async () => {
    const res = await j.api("GET", "/integrations/%E0%A4%A");
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
  });

  test("every response carries a request id; a sane incoming one is kept", async () => {
    const res = await j.api("GET", "/integrations", undefined, { "x-request-id": "abc-123" });
    expect(res.headers.get("x-request-id")).toBe("abc-123");
    const generated = await j.api("GET", "/integrations", undefined, { "x-request-id": "bad id with spaces" });
    expect(generated.headers.get("x-request-id")).toMatch(/^req_/);
  });

  test("a request whose URL cannot be parsed (a Host with a space) gets 400 invalid_url with its request id, and is logged", async () => {
    const port = Number(new URL(j.url).port);
    const res = await rawHttpRequest(port, "/integrations", {
      headers: { host: "bad host", "x-request-id": "bad-host-1" },
    });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body).error.code).toBe("invalid_url");
    expect(res.headers["x-request-id"]).toBe("bad-host-1");
    const line = j.logLines.map((l) => JSON.parse(l)).find((l) => l.requestId === "bad-host-1");
    expect(line).toMatchObject({ msg: "request", method: "GET", path: "", status: 400 });
  });

  test("logs are structured JSON lines with the request id, and carry no secrets", async () => {
    await j.api("GET", "/integrations", undefined, { "x-request-id": "log-check-1" });
    const line = j.logLines.map((l) => JSON.parse(l)).find((l) => l.requestId === "log-check-1");
    expect(line).toMatchObject({ level: "info", msg: "request", method: "GET", path: "/integrations", status: 200 });
    expect(j.logLines.join("\n")).not.toContain(TEST_SECRET_KEY);
  });

  test("webhook settings: signing secret separate from the secret key, shown once, stored encrypted", async () => {
    const put = await j.api("PUT", "/webhook-settings", { endpoints: ["http://127.0.0.1:9/hooks"] });
    expect(put.status).toBe(200);
    expect(put.body.data.endpoints[0].url).toBe("http://127.0.0.1:9/hooks");
    const rotated = await j.api("POST", "/webhook-settings/signing-secret", { grace_period_seconds: 60 });
    expect(rotated.status).toBe(201);
    const secret: string = rotated.body.data.signing_secret;
    expect(secret).toMatch(/^whsec_/);
    const got = await j.api("GET", "/webhook-settings");
    expect(got.text).not.toContain(secret);
    expect(secret.startsWith(got.body.data.signing_secret_prefix)).toBe(true);
    const db = new Database(join(j.dataDir, "junction.sqlite"), { readonly: true });
    const tables = db.query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type='table'").all();
    const dump = tables.map((t) => JSON.stringify(db.query(`SELECT * FROM "${t.name}"`).all())).join("\n");
    db.close();
    expect(dump).not.toContain(secret.slice(6));
    expect(j.logLines.join("\n")).not.toContain(secret);
  });
});

describe("first start", () => {
  test("with no key configured, one is generated once, works, and is not in the structured log", async () => {
    const dir = tempDir();
    const first = await startTestJunction({ dataDir: dir.path, secretKey: null });
    const key = first.generatedSecretKey;
    expect(key).toMatch(/^jct_sk_/);
    const res = await fetch(`${first.url}/integrations`, { headers: { authorization: `Bearer ${key}` } });
    expect(res.status).toBe(200);
    expect(first.logLines.join("\n")).not.toContain(key as string);
    await first.close({ keepData: true });

    const second = await startTestJunction({ dataDir: dir.path, secretKey: null });
    expect(second.generatedSecretKey).toBeUndefined();
    const again = await fetch(`${second.url}/integrations`, { headers: { authorization: `Bearer ${key}` } });
    expect(again.status).toBe(200);
    await second.close();
    dir.remove();
  });

  test("the data dir holds one SQLite file in WAL mode and a private encryption key", async () => {
    const dir = tempDir();
    const junction = await startTestJunction({ dataDir: dir.path });
    const db = new Database(join(dir.path, "junction.sqlite"));
    expect(db.query<{ journal_mode: string }, []>("PRAGMA journal_mode").get()?.journal_mode).toBe("wal");
    db.close();
    const { statSync } = await import("node:fs");
    expect(statSync(join(dir.path, "encryption.key")).mode & 0o777).toBe(0o600);
    await junction.close();
    dir.remove();
  });
});
