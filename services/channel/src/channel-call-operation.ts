import { type Clock, fromConnectError } from "@junction/platform";
import type { OperationRecorder } from "@junction/platform/operations/operation-recorder";
import type { CallTarget, UpstreamAnswer, UpstreamFailure } from "./upstream-call.ts";

/** What a channel call is for, as the operations log names it. */
export interface ChannelCallLabel {
  action: "create" | "renew" | "stop";
  environmentId: string;
  /** The channel's id as Junction knows it before the call. */
  channelId: string;
  /** The channel's id as a successful answer names it (a provider that assigns its own ids). */
  answeredId?: (body: Uint8Array) => string | null | undefined;
  /** A status besides 2xx that ends the call as it should (a stop's 404: the channel is gone already). */
  alsoFine?: number;
}

/** What the call learnt on its way: the connection's provider, how many requests went (a 401 refreshes once). */
export interface CallCourse {
  startedAtMs: number;
  provider: string;
  attempts: number;
}

/**
 * Records one managed or rollback channel call (kind `channel_call`): its provider, integration,
 * connection and channel, the upstream's status or the stable code of why there was none, and its
 * duration. Never a body, a header or a channel token: the status, our own words and codes.
 */
export function recordChannelCall(
  deps: { clock: Clock; operations?: OperationRecorder },
  target: CallTarget,
  label: ChannelCallLabel,
  course: CallCourse,
  result: UpstreamAnswer | UpstreamFailure | { thrown: unknown },
): void {
  const recorder = deps.operations;
  if (!recorder?.enabled) return;
  const now = deps.clock.now();
  const outcome = outcomeOf(result, label);
  const channelId = (outcome.ok && "body" in result && label.answeredId?.(result.body)) || label.channelId;
  const what = `${label.action} channel ${channelId}`;
  recorder.record({
    kind: "channel_call",
    status: outcome.ok ? "success" : "failed",
    startedAtMs: course.startedAtMs,
    durationMs: now - course.startedAtMs,
    environmentId: label.environmentId,
    integration: target.providerConfigKey,
    connection: target.connectionId,
    tags: [`channel:${channelId}`, ...(course.provider ? [`provider:${course.provider}`] : [])],
    title:
      outcome.status > 0
        ? `${what} → ${outcome.status}${outcome.code ? ` (${outcome.code})` : ""}`
        : `${what} failed: ${outcome.code}`,
    messages: [
      {
        atMs: now,
        level: outcome.ok ? "info" : "warn",
        text: outcome.text,
        fields: {
          action: label.action,
          channelId,
          provider: course.provider,
          upstreamStatus: outcome.status,
          attempts: course.attempts,
          ...(outcome.code ? { error: outcome.code } : {}),
        },
      },
    ],
  });
}

function outcomeOf(
  result: UpstreamAnswer | UpstreamFailure | { thrown: unknown },
  label: ChannelCallLabel,
): { ok: boolean; status: number; code?: string; text: string } {
  if ("thrown" in result) {
    const e = fromConnectError(result.thrown);
    const internal = e.code === "internal_error";
    return { ok: false, status: 0, code: e.code, text: internal ? "internal error" : e.message };
  }
  if ("code" in result) return { ok: false, status: result.status, code: result.code, text: result.message };
  const ok = (result.status >= 200 && result.status <= 299) || result.status === label.alsoFine;
  const gone = ok && result.status === label.alsoFine;
  return {
    ok,
    status: result.status,
    ...(ok ? {} : { code: "upstream_refused" }),
    text: `the upstream answered ${result.status}${gone ? " (the channel is gone already)" : ""}`,
  };
}
