import { describe, expect, test } from "bun:test";
import { apiKeyIntegration, authorizations, useOAuthWorld } from "./oauth-e2e-kit.ts";

// What the gateway refuses on the authorization routes before the connection service has the attempt (a
// malformed query or body, a route of the wrong auth mode, a session that does not name the integration) is
// recorded once as an `authorization` operation, refused at `start` with the 4xx's stable code; never the
// query, the body or the token.

const SECRET_HINT = "hint-SECRET-in-the-query";
const SECRET_KEY = "sk-SECRET-api-key-in-the-body";

describe("the gateway's refusals on the authorization routes", () => {
  const world = useOAuthWorld();

  test("each is one refused authorization at start with its code; the service's own are not recorded twice", async () => {
    const w = await world();
    await w.integration();
    await apiKeyIntegration(w, "keyed");
    const token = await w.session({ end_user: { id: "user-1" }, allowed_integrations: ["cal", "keyed"] });
    const post = (path: string, body: unknown, type = "application/json") =>
      fetch(`${w.j.url}${path}`, { method: "POST", headers: { "content-type": type }, body: JSON.stringify(body) });

    // [what is done, the status answered, the code, the route recorded]
    const cases: [() => Promise<Response>, number, string, string][] = [
      // A malformed OAuth connect query: the hint is too long, the token is there.
      [
        () => w.start("cal", token, `&login_hint=${"x".repeat(400)}${SECRET_HINT}`),
        400,
        "invalid_query_params",
        "GET /oauth/connect/:integration",
      ],
      // The API key route for an OAuth integration.
      [
        () => post(`/api-auth/api-key/cal?connect_session_token=${token}`, { apiKey: SECRET_KEY }),
        400,
        "invalid_auth_mode",
        "POST /api-auth/api-key/:integration",
      ],
      [
        () => post(`/api-auth/basic/keyed?connect_session_token=${token}`, { username: "a", password: SECRET_KEY }),
        400,
        "invalid_auth_mode",
        "POST /api-auth/basic/:integration",
      ],
      [
        () => post(`/api-auth/api-key/keyed?connect_session_token=${token}&connection_id=mine`, { apiKey: SECRET_KEY }),
        400,
        "invalid_query_params",
        "POST /api-auth/api-key/:integration",
      ],
      [
        () => post("/api-auth/api-key/keyed?connect_session_token=jct_connect_session_nope", { apiKey: SECRET_KEY }),
        401,
        "unknown_connect_session_token",
        "POST /api-auth/api-key/:integration",
      ],
      // The connect form: of an OAuth integration without connect fields, and a body that is not a form.
      [
        () => fetch(`${w.j.url}/connect/form/cal?connect_session_token=${token}`),
        400,
        "invalid_request",
        "GET /connect/form/:integration",
      ],
      [
        () => post(`/connect/form/keyed?connect_session_token=${token}`, { apiKey: SECRET_KEY }),
        400,
        "invalid_content_type",
        "POST /connect/form/:integration",
      ],
      // A program (not a browser) asking the consent route for a form's integration.
      [() => w.start("keyed", token), 409, "not_an_authorization_flow", "GET /oauth/connect/:integration"],
    ];
    for (const [i, [act, status, code, route]] of cases.entries()) {
      const res = await act();
      expect([route, res.status]).toEqual([route, status]);
      const [op] = await authorizations(w.j, i + 1);
      expect(op).toMatchObject({ kind: "authorization", status: "refused", connection: null });
      expect(op.title).toEndWith(`authorization failed at start: ${code}`);
      const detail = (await w.j.api("GET", `/logs/operations/${op.id}`)).body.data;
      expect(detail.messages[0].fields).toMatchObject({ step: "start", error: code, status, route });
    }

    // A browser asking the same is taken on to the form: not an end, not recorded.
    expect((await w.start("keyed", token, "", "text/html")).status).toBe(302);
    // Handed to the connection service (a well-formed start with an unknown session): recorded there, once.
    expect((await w.start("cal", "jct_connect_session_unknown")).status).toBe(401);
    const ops = await authorizations(w.j, cases.length + 1);
    await w.j.operations.flushed();
    const all = (await w.j.api("GET", "/logs/operations?kind=authorization&limit=500")).body.data;
    expect(all).toHaveLength(cases.length + 1);
    expect(ops[0].title).toBe("cal: authorization failed at start: unknown_connect_session_token");

    const stored = JSON.stringify(
      await Promise.all(all.map((o: { id: string }) => w.j.api("GET", `/logs/operations/${o.id}`))),
    );
    for (const secret of [SECRET_HINT, SECRET_KEY, token]) expect(stored).not.toContain(secret);
  });
});
