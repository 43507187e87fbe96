import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ManualClock, memoryLogger, openDatabase } from "@junction/platform";
import type { OperationInput } from "@junction/platform/operations/operation";
import type { OperationRecorder } from "@junction/platform/operations/operation-recorder";
import type { OAuthStateRecord } from "../store/records.ts";
import { SqliteConnectionStore } from "../store/sqlite-store.ts";
import { startAbandonedAuthorizationSweeps, sweepAbandonedAuthorizations } from "./abandoned-authorizations.ts";
import { REPLAY_MEMORY_MS } from "./connect-sessions.ts";

const TTL = 600_000;
const SWEEP = 60_000;

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0).reverse()) c();
});

/** A recorder that keeps what it is given (the sweep's part is what it records, not how it is written). */
function keptRecorder(): { recorder: OperationRecorder; ops: OperationInput[] } {
  const ops: OperationInput[] = [];
  const recorder = { enabled: true, record: (op: OperationInput) => ops.push(op) } as unknown as OperationRecorder;
  return { recorder, ops };
}

/** `n` stores on one SQLite file, as `n` processes of the connection service would open it. */
function storesOnOneFile(n: number): SqliteConnectionStore[] {
  const dir = mkdtempSync(join(tmpdir(), "junction-abandoned-"));
  const stores = Array.from({ length: n }, () => new SqliteConnectionStore(openDatabase(join(dir, "c.sqlite"))));
  cleanups.push(() => {
    for (const s of stores) void s.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return stores;
}

const state = (hash: string, createdAt: number): OAuthStateRecord => ({
  stateHash: hash,
  environmentId: "env_1",
  sessionId: "sess_1",
  providerConfigKey: "cal",
  connectionId: `conn-${hash}`,
  codeVerifierEnc: "enc:v1:k:iv:ct",
  redirectUri: "http://127.0.0.1:3003/oauth/callback",
  scopes: ["openid"],
  testCredentials: false,
  connectionConfig: {},
  createdAt,
  expiresAt: createdAt + TTL,
  consumedAt: null,
});

async function seed(store: SqliteConnectionStore, clock: ManualClock, hashes: string[]): Promise<void> {
  await store.insertConnectSession({
    id: "sess_1",
    environmentId: "env_1",
    tokenHash: "token-hash",
    endUser: { id: "user-1" },
    organization: null,
    allowedIntegrations: ["cal"],
    integrationsConfigDefaults: {},
    overrides: {},
    tags: { team: "blue" },
    reconnect: null,
    createdAt: clock.now(),
    expiresAt: clock.now() + 3 * TTL,
  });
  for (const h of hashes) await store.insertOAuthState(state(h, clock.now()));
}

describe("abandoned authorizations", () => {
  test("two sweepers on one SQLite file record each abandoned attempt once", async () => {
    const clock = new ManualClock();
    const [a, b] = storesOnOneFile(2) as [SqliteConnectionStore, SqliteConnectionStore];
    const hashes = Array.from({ length: 250 }, (_, i) => `s${i}`);
    await seed(a, clock, hashes);
    const { recorder, ops } = keptRecorder();
    const logger = memoryLogger();
    const sweeps = [a, b].map((store) =>
      startAbandonedAuthorizationSweeps({ store, clock, logger, operations: recorder, intervalMs: SWEEP }),
    );
    await clock.advance(TTL + SWEEP);
    // Both at once, as two processes' timers firing together would.
    await Promise.all(sweeps.flatMap((s) => [s.sweepNow(), s.sweepNow()]));
    for (const s of sweeps) await s.stop();
    expect(ops).toHaveLength(hashes.length);
    expect(new Set(ops.map((o) => o.connection)).size).toBe(hashes.length);
    expect(ops[0]).toMatchObject({
      kind: "authorization",
      status: "failed",
      integration: "cal",
      environmentId: "env_1",
      endUser: "user-1",
      tags: ["team:blue"],
      durationMs: TTL,
      title: "cal: authorization failed at consent: authorization_abandoned",
    });
    expect(ops[0]?.messages?.[0]?.fields).toEqual({
      step: "consent",
      error: "authorization_abandoned",
      authMode: "OAUTH2",
    });
  });

  test("a state used by its callback is never recorded; a live one waits for its expiry", async () => {
    const clock = new ManualClock();
    const [store] = storesOnOneFile(1) as [SqliteConnectionStore];
    await seed(store, clock, ["used", "late"]);
    await store.consumeOAuthState("used", clock.now() + 1000);
    const { recorder, ops } = keptRecorder();
    const deps = { store, clock, logger: memoryLogger(), operations: recorder };
    await clock.advance(TTL - 1);
    expect(await sweepAbandonedAuthorizations(deps)).toBe(0);
    await clock.advance(1);
    expect(await sweepAbandonedAuthorizations(deps)).toBe(1);
    expect(ops.map((o) => o.connection)).toEqual(["conn-late"]);
    expect(await sweepAbandonedAuthorizations(deps)).toBe(0);
  });

  test("what expired longer ago than a replay is remembered is deleted by the sweep, once recorded", async () => {
    const clock = new ManualClock();
    const [store] = storesOnOneFile(1) as [SqliteConnectionStore];
    await seed(store, clock, ["old"]);
    const { recorder, ops } = keptRecorder();
    const deps = { store, clock, logger: memoryLogger(), operations: recorder };
    await clock.advance(TTL);
    await sweepAbandonedAuthorizations(deps);
    expect((await store.consumeOAuthState("old", clock.now()))?.state.abandoned).toBe(true);
    await clock.advance(3 * TTL + REPLAY_MEMORY_MS);
    await sweepAbandonedAuthorizations(deps);
    expect(await store.consumeOAuthState("old", clock.now())).toBeNull();
    expect(await store.getConnectSession("sess_1")).toBeNull();
    expect(ops).toHaveLength(1);
  });

  test("a sweep the store fails is logged, and the next one claims what it left", async () => {
    const clock = new ManualClock();
    const [store] = storesOnOneFile(1) as [SqliteConnectionStore];
    await seed(store, clock, ["x"]);
    const { recorder, ops } = keptRecorder();
    const logger = memoryLogger();
    const claim = store.claimAbandonedOAuthStates.bind(store);
    let failures = 1;
    store.claimAbandonedOAuthStates = async (now, limit) => {
      if (failures-- > 0) throw new Error("database is locked");
      return claim(now, limit);
    };
    const sweeps = startAbandonedAuthorizationSweeps({ store, clock, logger, operations: recorder, intervalMs: SWEEP });
    await clock.advance(TTL);
    expect(await sweeps.sweepNow()).toBe(0);
    expect(logger.lines.join("\n")).toContain("abandoned authorizations not swept");
    await clock.advance(SWEEP);
    expect(await sweeps.sweepNow()).toBe(0);
    await sweeps.stop();
    expect(ops).toHaveLength(1);
  });
});
