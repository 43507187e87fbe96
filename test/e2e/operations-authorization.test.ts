import { describe, expect, test } from "bun:test";
import type { TestJunction } from "../support/embedded-junction.ts";
import { waitFor } from "../support/wait-for.ts";
import { CLIENT, useOAuthWorld } from "./oauth-e2e-kit.ts";

// The operations log's `authorization` kind: one operation per attempt, where it ends, with the step and
// stable code of a failure, and never a secret (the client's, the code, the tokens).

/** The authorization operations, newest first, once there are `n`. */
async function authorizations(j: TestJunction, n: number, filter = ""): Promise<any[]> {
  return waitFor(`${n} authorization operations`, async () => {
    const res = await j.api("GET", `/logs/operations?kind=authorization${filter}`);
    return res.body.data?.length >= n ? res.body.data : null;
  });
}

/** Every authorization operation as stored, with its messages. */
async function storedText(j: TestJunction): Promise<string> {
  const list = (await j.api("GET", "/logs/operations?kind=authorization&limit=500")).body.data as { id: string }[];
  const details = await Promise.all(list.map((o) => j.api("GET", `/logs/operations/${o.id}`)));
  return JSON.stringify([list, details.map((d) => d.body)]);
}

describe("the operations log records authorizations", () => {
  const world = useOAuthWorld();

  test("a consent that connects, a code the token endpoint refuses, a denied consent, a replay, a bad session", async () => {
    const w = await world();
    await w.integration();
    const first = await w.authorize();
    const code = first.searchParams.get("code") as string;
    w.clock.advance(1_500);
    expect((await w.callback(first)).code).toBe("connected");
    const [id] = await w.connectionIds();
    const [ok] = await authorizations(w.j, 1);
    expect(ok).toMatchObject({
      status: "success",
      integration: "cal",
      connection: id,
      end_user: "user-1",
      title: "cal: connected",
    });
    // It started when the authorization URL was made and ended at the callback.
    expect(ok.duration_ms).toBe(1_500);

    const bad = await w.authorize();
    bad.searchParams.set("code", "not-the-code");
    expect((await w.callback(bad)).code).toBe("token_exchange_refused");
    const [refused] = await authorizations(w.j, 2);
    expect(refused).toMatchObject({
      status: "failed",
      integration: "cal",
      end_user: "user-1",
      title: "cal: authorization failed at exchange: token_exchange_refused",
    });
    const detail = (await w.j.api("GET", `/logs/operations/${refused.id}`)).body.data;
    expect(detail.messages[0].fields).toEqual({
      step: "exchange",
      error: "token_exchange_refused",
      cause: "invalid_grant",
      authMode: "OAUTH2",
    });
    expect(detail.messages[0].text).toContain("refused to exchange the authorization code");

    w.fake.setNextAuthorization({ deny: true });
    expect((await w.callback(await w.authorize())).code).toBe("access_denied");
    const [denied] = await authorizations(w.j, 3);
    expect(denied).toMatchObject({ status: "failed", title: "cal: authorization failed at consent: access_denied" });

    // A replayed callback is refused input, not a second end of the first attempt.
    expect((await w.callback(first)).code).toBe("state_already_used");
    const [replay] = await authorizations(w.j, 4);
    expect(replay).toMatchObject({ status: "refused", integration: "cal", connection: null });

    expect((await w.start("cal", "not-a-session-token")).status).toBe(401);
    const [unknown] = await authorizations(w.j, 5);
    expect(unknown).toMatchObject({
      status: "refused",
      title: "cal: authorization failed at start: unknown_connect_session_token",
    });

    // The connection's own operations (the dashboard's link from its page) hold its authorization.
    const mine = await authorizations(w.j, 1, `&integration=cal&connection=${id}`);
    expect(mine.map((o) => o.id)).toEqual([ok.id]);

    const { credentials } = await w.j.clients.connection.getCredentials({ providerConfigKey: "cal", connectionId: id });
    const stored = await storedText(w.j);
    expect(stored).toContain("token_exchange_refused");
    for (const secret of [CLIENT.clientSecret, code, credentials?.accessToken, credentials?.refreshToken]) {
      expect(secret).toBeString();
      expect(stored).not.toContain(secret as string);
    }
  });

  test("a re-authorization through a reconnect session, and a start the session does not allow", async () => {
    const w = await world();
    await w.integration();
    expect((await w.callback(await w.authorize())).code).toBe("connected");
    const [id] = await w.connectionIds();
    const again = await w.session({
      end_user: { id: "user-1" },
      allowed_integrations: ["cal"],
      tags: { team: "blue" },
    });
    const reconnect = await w.j.api("POST", "/connect/sessions/reconnect", {
      connection_id: id,
      integration_id: "cal",
      end_user: { id: "user-1" },
    });
    expect(reconnect.status).toBe(201);
    expect((await w.callback(await w.authorize("cal", reconnect.body.data.token))).code).toBe("connected");
    const [reauth] = await authorizations(w.j, 2);
    expect(reauth).toMatchObject({ status: "success", connection: id, title: "cal: re-authorized" });

    // A session that does not allow the integration ends its attempt at the start.
    expect((await w.j.api("POST", "/integrations", { unique_key: "other", provider: "google-calendar" })).status).toBe(
      200,
    );
    expect((await w.start("other", again)).status).toBe(403);
    const [notAllowed] = await authorizations(w.j, 3);
    expect(notAllowed).toMatchObject({
      status: "failed",
      integration: "other",
      end_user: "user-1",
      title: "other: authorization failed at start: integration_not_allowed",
    });
    expect(notAllowed.tags).toContain("team:blue");
  });
});
