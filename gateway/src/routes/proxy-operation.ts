import { fromConnectError } from "@junction/platform";
import type { OperationRecorder } from "@junction/platform/operations/operation-recorder";
import type { ProxyCallObserver, UpstreamRequest } from "@junction/upstream-proxy";

/**
 * Records each /proxy call in the operations log once its answer's headers are back (the body streams
 * afterwards, unrecorded), as the proxy engine's observer: told from the request's own frame, so recording costs
 * no promise or closure per call. A successful call (under 400) is counted into its minute's total per
 * (environment, integration, connection, method, status): a map update, since a row per call cost the proxy about
 * a fifth of its CPU per request. Failures (400 and above, errors) are a row each with the path (never the query:
 * it may carry a key) and the status or error; so are successes when the operator asked for them one by one
 * (JUNCTION_LOGS_PROXY_SUCCESSES).
 */
export function proxyCallObserver(recorder: OperationRecorder): ProxyCallObserver {
  return {
    answered(request, caller, status, startedAtMs, endedAtMs) {
      if (status < 400 && !recorder.proxySuccesses) {
        recorder.proxyTotals.add(
          caller.environmentId,
          request.providerConfigKey,
          request.connectionId,
          request.method,
          status,
          endedAtMs - startedAtMs,
          endedAtMs,
        );
        return;
      }
      recorder.record({
        ...base(request, caller, startedAtMs),
        status: status < 400 ? "success" : "failed",
        durationMs: endedAtMs - startedAtMs,
        title: `${request.method} ${request.path} → ${status}`,
        messages: [
          {
            atMs: endedAtMs,
            level: status < 400 ? "info" : "warn",
            text: `upstream answered ${status}`,
            fields: { status },
          },
        ],
      });
    },
    failed(request, caller, err, startedAtMs, endedAtMs) {
      const failure = fromConnectError(err);
      recorder.record({
        ...base(request, caller, startedAtMs),
        status: "failed",
        durationMs: endedAtMs - startedAtMs,
        title: `${request.method} ${request.path} → ${failure.code}`,
        messages: [{ atMs: endedAtMs, level: "error", text: `${failure.code}: ${failure.message}` }],
      });
    },
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
