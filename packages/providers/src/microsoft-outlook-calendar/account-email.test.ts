import { afterEach, describe, expect, test } from "bun:test";
import { microsoftOutlookCalendar } from "./adapter.ts";

// A local stand-in for Graph's GET /v1.0/me (https://learn.microsoft.com/en-us/graph/api/user-get).
let server: ReturnType<typeof Bun.serve> | undefined;
afterEach(() => server?.stop(true));

function graph(answer: (req: Request) => Response): string {
  server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: answer });
  return `http://127.0.0.1:${server.port}/`;
}

const readEmail = microsoftOutlookCalendar.readAccountEmail;
if (!readEmail) throw new Error("the outlook adapter reads the account's email");

describe("microsoft-outlook-calendar readAccountEmail", () => {
  test("reads /v1.0/me's mail with the access token", async () => {
    const seen: string[] = [];
    const base = graph((req) => {
      const url = new URL(req.url);
      seen.push(`${url.pathname} ${url.searchParams.get("$select")} ${req.headers.get("authorization")}`);
      return Response.json({ mail: "Alice@Contoso.com", userPrincipalName: "alice_upn@contoso.com" });
    });
    expect(await readEmail(fetch, base, "at-1", 2000)).toEqual({ ok: true, email: "Alice@Contoso.com" });
    expect(seen).toEqual(["/v1.0/me mail,userPrincipalName Bearer at-1"]);
    expect(microsoftOutlookCalendar.storesEmailHash).toBe(true);
  });

  test("falls back to userPrincipalName when mail is null or blank", async () => {
    const base = graph(() => Response.json({ mail: null, userPrincipalName: "bob@contoso.onmicrosoft.com" }));
    expect(await readEmail(fetch, base, "at", 2000)).toEqual({ ok: true, email: "bob@contoso.onmicrosoft.com" });
  });

  test("says why when Graph refuses, answers no JSON or names no address", async () => {
    let answer = new Response("nope", { status: 401 });
    const base = graph(() => answer);
    expect(await readEmail(fetch, base, "at", 2000)).toEqual({
      ok: false,
      reason: "the profile API answered HTTP 401",
    });
    answer = new Response("<html>");
    expect(await readEmail(fetch, base, "at", 2000)).toMatchObject({
      ok: false,
      reason: expect.stringContaining("not JSON"),
    });
    answer = Response.json({ mail: "", userPrincipalName: 7 });
    expect(await readEmail(fetch, base, "at", 2000)).toMatchObject({
      ok: false,
      reason: expect.stringContaining("neither"),
    });
  });
});
