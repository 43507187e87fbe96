import type { OperationRecorder } from "@junction/platform/operations/operation-recorder";
import type { TokenFailure } from "../oauth/token-client.ts";
import type { ConnectionRecord } from "../store/records.ts";

/** Why a token request failed, in words that carry no secret (the upstream's OAuth error code, a status). */
function failureText(f: TokenFailure): string {
  switch (f.kind) {
    case "refused":
      return `the token endpoint refused: ${f.error} (HTTP ${f.status})`;
    case "timeout":
      return `the token endpoint did not answer within ${f.timeoutMs} ms`;
    case "unreachable":
      return "the token endpoint could not be reached";
    case "invalid_response":
      return `the token endpoint's answer was unusable (HTTP ${f.status})`;
  }
}

/** A connection's end user id and tags, as the operations log files them. */
export function connectionParties(rec: ConnectionRecord): { endUser: string; tags: string[] } {
  const id = rec.endUser?.id;
  return {
    endUser: typeof id === "string" ? id : "",
    tags: Object.entries(rec.tags).map(([k, v]) => `${k}:${v}`),
  };
}

/** Records one token request of the refresher: refreshed, or why not. */
export function recordRefresh(
  recorder: OperationRecorder | undefined,
  at: { environmentId: string; integration: string; startedAtMs: number; nowMs: number },
  rec: ConnectionRecord,
  failure: TokenFailure | null,
): void {
  if (!recorder?.enabled) return;
  const text = failure ? failureText(failure) : "access token refreshed";
  recorder.record({
    kind: "token_refresh",
    status: failure ? "failed" : "success",
    startedAtMs: at.startedAtMs,
    durationMs: at.nowMs - at.startedAtMs,
    environmentId: at.environmentId,
    integration: at.integration,
    connection: rec.connectionId,
    ...connectionParties(rec),
    title: failure ? `token refresh failed: ${failure.kind}` : "token refreshed",
    messages: [{ atMs: at.nowMs, level: failure ? "warn" : "info", text }],
  });
}
