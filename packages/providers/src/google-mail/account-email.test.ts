import { afterEach, describe, expect, test } from "bun:test";
import { accountEmailReader, providerAdapter } from "../index.ts";
import { googleMail } from "./adapter.ts";

// A local stand-in for Gmail's GET /gmail/v1/users/me/profile.
let server: ReturnType<typeof Bun.serve> | undefined;
afterEach(() => server?.stop(true));

function gmail(answer: (req: Request) => Response): string {
  server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: answer });
  return `http://127.0.0.1:${server.port}/`;
}

const readEmail = googleMail.readAccountEmail;
if (!readEmail) throw new Error("the mail adapter reads the mailbox's address");

describe("google-mail readAccountEmail", () => {
  test("reads the profile's emailAddress with the access token; connections store its hash", async () => {
    const seen: string[] = [];
    const base = gmail((req) => {
      seen.push(`${new URL(req.url).pathname} ${req.headers.get("authorization")}`);
      return Response.json({ emailAddress: "Alice@Example.com", messagesTotal: 3, historyId: "10" });
    });
    expect(await readEmail(fetch, base, "at-1", 2000)).toEqual({ ok: true, email: "Alice@Example.com" });
    expect(seen).toEqual(["/gmail/v1/users/me/profile Bearer at-1"]);
    expect(googleMail.storesEmailHash).toBe(true);
  });

  test("says why when Gmail refuses or names no address, never with the token", async () => {
    let answer = () => new Response("nope", { status: 403 });
    const base = gmail(() => answer());
    const refused = await readEmail(fetch, base, "secret-at", 2000);
    expect(refused).toEqual({ ok: false, reason: "the Gmail profile API answered HTTP 403" });
    answer = () => Response.json({ messagesTotal: 3 });
    expect(await readEmail(fetch, base, "secret-at", 2000)).toEqual({
      ok: false,
      reason: "the Gmail profile names no emailAddress",
    });
    expect(JSON.stringify(refused)).not.toContain("secret-at");
  });
});

describe("accountEmailReader", () => {
  const READONLY = "https://www.googleapis.com/auth/gmail.readonly";
  const SEND = "https://www.googleapis.com/auth/gmail.send";

  test("Gmail's address is read only when the grant holds a scope users.getProfile accepts", () => {
    expect(accountEmailReader(googleMail, ["email", READONLY])).toBe(googleMail.readAccountEmail);
    expect(accountEmailReader(googleMail, ["https://mail.google.com/"])).toBe(googleMail.readAccountEmail);
    expect(accountEmailReader(googleMail, ["email", SEND])).toBeUndefined();
    expect(accountEmailReader(googleMail, [])).toBeUndefined();
  });

  test("an adapter naming no scopes reads with any grant; one storing no hash never does", () => {
    const calendar = providerAdapter("google-calendar");
    if (!calendar) throw new Error("no calendar adapter");
    expect(accountEmailReader(calendar, [])).toBe(calendar.readAccountEmail);
    expect(accountEmailReader({ ...googleMail, storesEmailHash: false }, [READONLY])).toBeUndefined();
  });
});
