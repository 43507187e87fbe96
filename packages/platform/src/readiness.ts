/**
 * Readiness (GET /ready): what a process needs in order to serve (its store, its bus, the services it
 * calls), each asked in turn with a deadline. /health stays liveness: the process runs.
 */

/** One thing a process needs: `check` resolves when it answers and rejects saying why when not. */
export interface ReadinessCheck {
  /** What it is, as /ready names it: "store", "bus", "service:connection". */
  name: string;
  check(): Promise<void>;
}

/** What /ready answers: every check's name, and the ones that failed with why. */
export interface ReadinessReport {
  ready: boolean;
  checked: string[];
  missing: { name: string; reason: string }[];
}

/** How long one check may take before it counts as missing. */
export const READY_CHECK_TIMEOUT_MS = 2500;

/** Runs every check at once, each within `timeoutMs`. */
export async function checkReadiness(
  checks: readonly ReadinessCheck[],
  timeoutMs = READY_CHECK_TIMEOUT_MS,
): Promise<ReadinessReport> {
  const results = await Promise.all(
    checks.map(async ({ name, check }) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      });
      try {
        await Promise.race([check(), late]);
        return undefined;
      } catch (err) {
        return { name, reason: err instanceof Error ? err.message : String(err) };
      } finally {
        clearTimeout(timer);
      }
    }),
  );
  const missing = results.filter((r) => r !== undefined);
  return { ready: missing.length === 0, checked: checks.map((c) => c.name), missing };
}

/** GET /ready's answer: 200 `{ status: "ready" }`, or 503 `{ status: "not_ready", missing: [...] }`. */
export async function readyResponse(checks: readonly ReadinessCheck[]): Promise<Response> {
  const report = await checkReadiness(checks);
  const body = report.ready
    ? { status: "ready", checked: report.checked }
    : { status: "not_ready", checked: report.checked, missing: report.missing };
  return new Response(JSON.stringify(body), {
    status: report.ready ? 200 : 503,
    headers: { "content-type": "application/json", "cache-control": "no-store" },
  });
}

/** The SQLite file answers a query. */
export function sqliteCheck(name: string, db: { query(sql: string): { get(): unknown } }): ReadinessCheck {
  return {
    name,
    check: async () => {
      try {
        db.query("SELECT 1").get();
      } catch {
        throw new Error("the SQLite file does not answer");
      }
    },
  };
}
