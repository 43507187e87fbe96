import type { Clock, Logger, TimerHandle } from "@junction/platform";
import type { OperationRecorder } from "@junction/platform/operations/operation-recorder";
import type { OAuthStateRecord } from "../store/records.ts";
import type { ConnectionServiceStore } from "../store/store.ts";
import { recordAuthorization } from "./authorization-operation.ts";
import { REPLAY_MEMORY_MS } from "./connect-sessions.ts";

/** Default time between two sweeps: an abandoned attempt is recorded within this of its state's expiry. */
export const DEFAULT_ABANDONED_SWEEP_MS = 60_000;

/** States claimed by one statement (a sweep claims again until fewer come back). */
const CLAIM_BATCH = 100;

export interface AbandonedAuthorizationDeps {
  store: Pick<ConnectionServiceStore, "claimAbandonedOAuthStates" | "getConnectSession" | "purgeOAuthFlow">;
  /** Sweeps run on this clock's timers; an attempt's end is its state's expiry on this clock. */
  clock: Clock;
  logger: Logger;
  operations?: OperationRecorder | undefined;
  /** Time between sweeps (default DEFAULT_ABANDONED_SWEEP_MS). */
  intervalMs?: number;
}

/**
 * One sweep: every authorization whose state expired unused (the user never came back from the consent
 * screen) is claimed in the store, so that it is recorded once however many processes sweep and never
 * after a callback that came first, and recorded as failed at `consent` with `authorization_abandoned`.
 * Then what expired longer ago than a replay is remembered is deleted. Returns how many were recorded.
 */
export async function sweepAbandonedAuthorizations(deps: AbandonedAuthorizationDeps): Promise<number> {
  const now = deps.clock.now();
  let recorded = 0;
  for (;;) {
    const claimed = await deps.store.claimAbandonedOAuthStates(now, CLAIM_BATCH);
    for (const st of claimed) await recordAbandoned(deps, st);
    recorded += claimed.length;
    if (claimed.length < CLAIM_BATCH) break;
  }
  await deps.store.purgeOAuthFlow(now - REPLAY_MEMORY_MS);
  return recorded;
}

async function recordAbandoned(deps: AbandonedAuthorizationDeps, st: OAuthStateRecord): Promise<void> {
  const session = await deps.store.getConnectSession(st.sessionId).catch(() => null);
  const minutes = Math.round((st.expiresAt - st.createdAt) / 60_000);
  recordAuthorization(
    deps,
    {
      startedAtMs: st.createdAt,
      endedAtMs: st.expiresAt,
      authMode: "OAUTH2",
      environmentId: st.environmentId,
      integration: st.providerConfigKey,
      connection: st.connectionId,
      session,
    },
    {
      ok: false,
      step: "consent",
      code: "authorization_abandoned",
      message: `The user did not come back from the provider's consent screen within ${minutes} minutes; the authorization expired. Nothing was saved.`,
    },
  );
  deps.logger.info("authorization abandoned", { integration: st.providerConfigKey, connectionId: st.connectionId });
}

/** The sweeps of one process: `sweepNow` runs one (after the one under way); `stop` ends them. */
export interface AbandonedAuthorizationSweeps {
  sweepNow(): Promise<number>;
  stop(): Promise<void>;
}

/**
 * Sweeps at start and every `intervalMs` of the clock, one at a time (a tick while a sweep runs waits for
 * it). A failed sweep is logged; what it left unclaimed is claimed by the next.
 */
export function startAbandonedAuthorizationSweeps(deps: AbandonedAuthorizationDeps): AbandonedAuthorizationSweeps {
  const log = deps.logger.child({ component: "abandoned-authorizations" });
  let timer: TimerHandle | undefined;
  let last: Promise<number> = Promise.resolve(0);
  const sweepNow = (): Promise<number> => {
    last = last
      .catch(() => 0)
      .then(() => sweepAbandonedAuthorizations({ ...deps, logger: log }))
      .catch((err: unknown) => {
        log.warn("abandoned authorizations not swept; the next sweep retries", { error: err });
        return 0;
      });
    return last;
  };
  const schedule = () => {
    timer = deps.clock.setTimer(() => {
      void sweepNow();
      if (timer) schedule();
    }, deps.intervalMs ?? DEFAULT_ABANDONED_SWEEP_MS);
  };
  schedule();
  void sweepNow();
  return {
    sweepNow,
    async stop() {
      timer?.cancel();
      timer = undefined;
      await last;
    },
  };
}
