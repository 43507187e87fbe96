import { describe, expect, test } from "bun:test";
import type { TestJunction } from "../support/embedded-junction.ts";
import { waitFor } from "../support/wait-for.ts";
import { type OAuthWorld, useOAuthWorld } from "./oauth-e2e-kit.ts";

// An authorization started and never come back (the user closed the consent window) is recorded once, when
// its state expires, by the connection service's sweep on the injected clock; a callback that ends the
// attempt first, or comes after the sweep, never makes it two.

const MINUTE = 60_000;
const TTL = 10 * MINUTE;
const SWEEP = MINUTE;
const env = { JUNCTION_OAUTH_STATE_TTL_MS: String(TTL), JUNCTION_OAUTH_SWEEP_INTERVAL_MS: String(SWEEP) };

/** Every authorization operation, newest first. */
async function all(j: TestJunction): Promise<any[]> {
  return (await j.api("GET", "/logs/operations?kind=authorization&limit=500")).body.data;
}

/**
 * The authorization operations once a refused start made after everything before it is in the log: the
 * recorder writes in order, so whatever a sweep recorded before the marker is there too. The marker is
 * left out of the answer.
 */
async function settled(w: OAuthWorld): Promise<any[]> {
  const before = (await all(w.j)).length;
  expect((await w.start("cal", "jct_connect_session_marker")).status).toBe(401);
  const ops = await waitFor("the marker in the log", async () => {
    const now = await all(w.j);
    return now.length > before && now[0].title.includes("unknown_connect_session_token") ? now : null;
  });
  return ops.slice(1).filter((o) => !o.title.includes("unknown_connect_session_token"));
}

describe("an authorization never come back", () => {
  const world = useOAuthWorld();

  test("is recorded once when its state expires, from its start to its expiry; a late callback adds nothing", async () => {
    const w = await world({ env });
    await w.integration();
    const startedAt = w.clock.now();
    const callback = await w.authorize();
    await w.clock.advance(TTL - 1);
    expect(await settled(w)).toEqual([]);

    await w.clock.advance(SWEEP + 1);
    const [op, ...others] = await settled(w);
    expect(others).toEqual([]);
    expect(op).toMatchObject({
      kind: "authorization",
      status: "failed",
      integration: "cal",
      end_user: "user-1",
      title: "cal: authorization failed at consent: authorization_abandoned",
      started_at: new Date(startedAt).toISOString(),
      duration_ms: TTL,
    });
    expect(op.connection).toBeString();
    const detail = (await w.j.api("GET", `/logs/operations/${op.id}`)).body.data;
    expect(detail.messages[0].fields).toEqual({
      step: "consent",
      error: "authorization_abandoned",
      authMode: "OAUTH2",
    });

    // More sweeps, then the user comes back at last: told it expired, and nothing more is recorded.
    await w.clock.advance(5 * SWEEP);
    const late = await w.callback(callback);
    expect(late.code).toBe("authorization_expired");
    expect((await settled(w)).map((o) => o.id)).toEqual([op.id]);
    expect(await w.connectionIds()).toEqual([]);
  });

  test("a callback after the expiry but before the sweep ends the attempt itself: still one operation", async () => {
    const w = await world({ env });
    await w.integration();
    // Started between two sweeps, so that its expiry falls between two sweeps too.
    await w.clock.advance(SWEEP / 2);
    const startedAt = w.clock.now();
    const callback = await w.authorize();
    await w.clock.advance(TTL + SWEEP / 4);
    expect((await w.callback(callback)).code).toBe("authorization_expired");
    await w.clock.advance(3 * SWEEP);
    const ops = await settled(w);
    expect(ops).toHaveLength(1);
    // As the sweep would have filed it: from the attempt's start, with its session's end user.
    expect(ops[0]).toMatchObject({
      status: "failed",
      title: "cal: authorization failed at callback: authorization_expired",
      started_at: new Date(startedAt).toISOString(),
      duration_ms: TTL + SWEEP / 4,
      end_user: "user-1",
    });
  });

  test("a callback racing the sweep: whichever uses the state first records the attempt, once", async () => {
    const w = await world({ env });
    await w.integration();
    const callbacks = [await w.authorize(), await w.authorize(), await w.authorize()];
    await w.authorize(); // never comes back
    await w.clock.advance(TTL - 1);
    // The sweep that falls due with the expiry runs while the three callbacks come in.
    const answers = await Promise.all([w.clock.advance(SWEEP), ...callbacks.map((c) => w.callback(c))]);
    for (const a of answers.slice(1)) expect((a as { code: string }).code).toBe("authorization_expired");
    await w.clock.advance(3 * SWEEP);
    const ops = await settled(w);
    expect(ops).toHaveLength(4);
    for (const op of ops) {
      expect(op.title).toMatch(
        /^cal: authorization failed at (consent: authorization_abandoned|callback: authorization_expired)$/,
      );
    }
    expect(ops.filter((o) => o.title.endsWith("authorization_abandoned")).length).toBeGreaterThanOrEqual(1);
    expect(new Set(ops.map((o) => o.connection)).size).toBe(4);
  });
});
