import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { TestJunction } from "../support/embedded-junction.ts";
import { apiKeyIntegration, authorizations, type OAuthWorld, useOAuthWorld } from "./oauth-e2e-kit.ts";

// What the Connect UI's own routes refuse an end user (its session read, its integrations and providers read
// with the session token, the page of links) is recorded once, as the authorization routes' refusals are; a
// refusal made with a known, unexpired session names its end user, tags and environment; one with an unknown
// or expired token names none, and never the token.

const UNKNOWN = "jct_connect_session_SECRET-unknown-token";
/** Another unknown token each: one dead token's refusals within a minute are one row (tested below). */
const unknown = (n: number) => `${UNKNOWN}-${n}`;
const TAGS = { team: "blue", plan: "pro" };

/** The operation `id`'s environment, as the log's store keeps it (the API does not answer it). */
function environmentOf(j: TestJunction, id: string): string {
  const db = new Database(join(j.dataDir, "logs.sqlite"), { readonly: true });
  try {
    return (
      db.query<{ e: string }, [string]>("SELECT environment_id AS e FROM operations WHERE id = ?").get(id)?.e ?? "?"
    );
  } finally {
    db.close();
  }
}

/** The environment the connect sessions were made in. */
function sessionEnvironment(j: TestJunction): string {
  const db = new Database(join(j.dataDir, "junction.sqlite"), { readonly: true });
  try {
    return db.query<{ e: string }, []>("SELECT DISTINCT environment_id AS e FROM connect_sessions").get()?.e ?? "";
  } finally {
    db.close();
  }
}

/** Runs each case: the status answered, then one new refused authorization with its code and route. */
async function expectRecorded(
  w: OAuthWorld,
  cases: [() => Promise<Response>, number, string, string][],
  before: number,
): Promise<any[]> {
  const seen = [];
  for (const [i, [act, status, code, route]] of cases.entries()) {
    const res = await act();
    expect([route, code, res.status]).toEqual([route, code, status]);
    const [op] = await authorizations(w.j, before + i + 1);
    expect([route, op.status, op.title]).toEqual([route, "refused", expect.stringContaining(`at start: ${code}`)]);
    const detail = (await w.j.api("GET", `/logs/operations/${op.id}`)).body.data;
    expect(detail.messages[0].fields).toMatchObject({ step: "start", error: code, status, route });
    seen.push(op);
  }
  return seen;
}

describe("the Connect UI's refusals", () => {
  const world = useOAuthWorld();

  test("its session read, its reads with the session token and the page of links each record one", async () => {
    const w = await world();
    await w.integration();
    await apiKeyIntegration(w, "keyed");
    const token = await w.session({ end_user: { id: "user-1" }, tags: TAGS, allowed_integrations: ["cal"] });
    const bearer = (t: string) => ({ authorization: `Bearer ${t}`, accept: "application/json" });
    const get = (path: string, t: string) => fetch(`${w.j.url}${path}`, { headers: bearer(t) });

    const ops = await expectRecorded(
      w,
      [
        [() => get("/connect/session", UNKNOWN), 401, "unknown_connect_session_token", "GET /connect/session"],
        [() => get("/integrations", unknown(1)), 401, "unknown_connect_session_token", "GET /integrations"],
        [
          () => get("/providers/keyed-provider", unknown(2)),
          401,
          "unknown_connect_session_token",
          "GET /providers/:provider",
        ],
        // A provider of an integration the session does not allow.
        [() => get("/providers/keyed-provider", token), 403, "integration_not_allowed", "GET /providers/:provider"],
        [
          () => fetch(`${w.j.url}/connect?connect_session_token=${unknown(3)}`, { headers: { accept: "text/html" } }),
          401,
          "unknown_connect_session_token",
          "GET /connect",
        ],
      ],
      0,
    );
    // An unknown token names nobody; the known session's refusal has its end user, tags and environment.
    for (const op of [ops[0], ops[1], ops[2], ops[4]]) expect([op.end_user, op.tags]).toEqual([null, []]);
    expect(ops[3]).toMatchObject({ end_user: "user-1", tags: expect.arrayContaining(["team:blue", "plan:pro"]) });
    await w.j.operations.flushed();
    expect(environmentOf(w.j, ops[0].id)).toBe("");
    expect(environmentOf(w.j, ops[3].id)).toBe(sessionEnvironment(w.j));
    expect(sessionEnvironment(w.j)).not.toBe("");

    // What succeeds, and the management API's own 4xxs with a secret key, are not authorizations refused.
    expect((await get("/connect/session", token)).status).toBe(200);
    expect((await get("/integrations", token)).status).toBe(200);
    expect((await w.j.api("GET", "/providers/nope")).status).toBe(404);
    expect((await w.j.api("GET", "/integrations?bad=1")).status).toBe(400);

    // An expired session: refused, and named as nobody (its end user is not looked up past its expiry).
    await w.clock.advance(31 * 60_000);
    const [expired] = await expectRecorded(
      w,
      [[() => get("/connect/session", token), 401, "connect_session_expired", "GET /connect/session"]],
      ops.length,
    );
    expect([expired.end_user, expired.tags]).toEqual([null, []]);

    await w.j.operations.flushed();
    const all = (await w.j.api("GET", "/logs/operations?kind=authorization&limit=500")).body.data;
    expect(all).toHaveLength(ops.length + 1);
    const stored = JSON.stringify(
      await Promise.all(all.map((o: { id: string }) => w.j.api("GET", `/logs/operations/${o.id}`))),
    );
    for (const secret of [UNKNOWN, token]) expect(stored).not.toContain(secret);

    // Opening the Connect UI with the expired token reads the session and the integrations at once: one row.
    // The same dead token refused again within the minute adds none; after it, one more.
    const count = async () => {
      await w.j.operations.flushed();
      return (await w.j.api("GET", "/logs/operations?kind=authorization&limit=500")).body.data.length;
    };
    await w.clock.advance(61_000);
    const reads = await Promise.all([get("/connect/session", token), get("/integrations", token)]);
    expect(reads.map((r) => r.status)).toEqual([401, 401]);
    expect((await get("/providers/keyed-provider", token)).status).toBe(401);
    expect(await count()).toBe(all.length + 1);
    await w.clock.advance(61_000);
    expect((await get("/integrations", token)).status).toBe(401);
    expect(await count()).toBe(all.length + 2);
  });

  test("a refusal on the authorization routes made with a valid session names its end user and tags", async () => {
    const w = await world();
    await w.integration();
    await apiKeyIntegration(w, "keyed");
    // The session allows `cal` only: the form and the credential route of `keyed` are refused by the gateway.
    const token = await w.session({ end_user: { id: "user-2" }, tags: TAGS, allowed_integrations: ["cal"] });
    const form = new URLSearchParams({ connect_session_token: token, apiKey: "sk-SECRET" }).toString();
    const ops = await expectRecorded(
      w,
      [
        [
          () => fetch(`${w.j.url}/connect/form/keyed?connect_session_token=${token}`),
          403,
          "integration_not_allowed",
          "GET /connect/form/:integration",
        ],
        // The token only in the form's body.
        [
          () =>
            fetch(`${w.j.url}/connect/form/keyed`, {
              method: "POST",
              headers: { "content-type": "application/x-www-form-urlencoded" },
              body: form,
            }),
          403,
          "integration_not_allowed",
          "POST /connect/form/:integration",
        ],
        // The token as the bearer, a malformed body: refused before the session is asked, still named.
        [
          () =>
            fetch(`${w.j.url}/api-auth/api-key/keyed`, {
              method: "POST",
              headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
              body: JSON.stringify({ apiKey: "" }),
            }),
          400,
          "invalid_body",
          "POST /api-auth/api-key/:integration",
        ],
        [
          () => w.start("cal", token, `&login_hint=${"x".repeat(400)}`),
          400,
          "invalid_query_params",
          "GET /oauth/connect/:integration",
        ],
      ],
      0,
    );
    for (const op of ops) {
      expect(op).toMatchObject({ end_user: "user-2", tags: expect.arrayContaining(["team:blue", "plan:pro"]) });
    }
    await w.j.operations.flushed();
    expect(environmentOf(w.j, ops[0].id)).toBe(sessionEnvironment(w.j));
    const stored = JSON.stringify(
      await Promise.all(ops.map((o: { id: string }) => w.j.api("GET", `/logs/operations/${o.id}`))),
    );
    expect(stored).not.toContain(token);
    expect(stored).not.toContain("sk-SECRET");
  });
});
