import type { Clock } from "@junction/platform";
import { fromConnectError } from "@junction/platform";
import type { OperationRecorder } from "@junction/platform/operations/operation-recorder";
import type { UpstreamRequest } from "@junction/upstream-proxy";

/**
 * Records each /proxy call in the operations log once its answer's headers are back (the body
 * streams afterwards, unrecorded): method, path (never the query: it may carry a key) and status.
 * Costs one `then` and a push into the recorder's buffer; nothing when recording is off. A successful call
 * (under 400) is recorded only when the operator asked for them (JUNCTION_LOGS_PROXY_SUCCESSES): a row per
 * call costs the proxy about a fifth of its CPU per request.
 */
export function proxyCallRecorder(recorder: OperationRecorder, clock: Clock) {
  return (call: Promise<Response>, request: UpstreamRequest, caller: { environmentId: string }): Promise<Response> => {
    const startedAtMs = clock.now();
    const base = {
      kind: "proxy_call" as const,
      startedAtMs,
      environmentId: caller.environmentId,
      integration: request.providerConfigKey,
      connection: request.connectionId,
    };
    return call.then(
      (res) => {
        const status = res.status;
        if (status < 400 && !recorder.proxySuccesses) return res;
        const now = clock.now();
        recorder.record({
          ...base,
          status: status < 400 ? "success" : "failed",
          durationMs: now - startedAtMs,
          title: `${request.method} ${request.path} → ${status}`,
          messages: [
            {
              atMs: now,
              level: status < 400 ? "info" : "warn",
              text: `upstream answered ${status}`,
              fields: { status },
            },
          ],
        });
        return res;
      },
      (err: unknown) => {
        const now = clock.now();
        const failure = fromConnectError(err);
        recorder.record({
          ...base,
          status: "failed",
          durationMs: now - startedAtMs,
          title: `${request.method} ${request.path} → ${failure.code}`,
          messages: [{ atMs: now, level: "error", text: `${failure.code}: ${failure.message}` }],
        });
        throw err;
      },
    );
  };
}
