import type { Clock } from "@junction/platform";
import { fromConnectError } from "@junction/platform";
import type { OperationRecorder } from "@junction/platform/operations/operation-recorder";
import type { UpstreamRequest } from "@junction/upstream-proxy";

/**
 * Records each /proxy call in the operations log once its answer's headers are back (the body
 * streams afterwards, unrecorded). A successful call (under 400) is counted into its minute's total
 * per (environment, integration, connection, method, status): one `then` and a map update, since a row
 * per call cost the proxy about a fifth of its CPU per request. Failures (400 and above, errors) are a
 * row each with the path (never the query: it may carry a key) and the status or error; so are
 * successes when the operator asked for them one by one (JUNCTION_LOGS_PROXY_SUCCESSES).
 */
export function proxyCallRecorder(recorder: OperationRecorder, clock: Clock) {
  return (call: Promise<Response>, request: UpstreamRequest, caller: { environmentId: string }): Promise<Response> => {
    const startedAtMs = clock.now();
    return call.then(
      (res) => {
        const status = res.status;
        const now = clock.now();
        if (status < 400 && !recorder.proxySuccesses) {
          recorder.proxyTotals.add(
            caller.environmentId,
            request.providerConfigKey,
            request.connectionId,
            request.method,
            status,
            now - startedAtMs,
            now,
          );
          return res;
        }
        recorder.record({
          ...base(request, caller, startedAtMs),
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
          ...base(request, caller, startedAtMs),
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

function base(request: UpstreamRequest, caller: { environmentId: string }, startedAtMs: number) {
  return {
    kind: "proxy_call" as const,
    startedAtMs,
    environmentId: caller.environmentId,
    integration: request.providerConfigKey,
    connection: request.connectionId,
  };
}
