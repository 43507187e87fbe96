import type { ChannelTokens } from "./channel-tokens.ts";
import type { Client } from "@connectrpc/connect";
import type { ProxyService } from "@junction/contracts/proxy/v1/proxy_service_pb";
import { type Clock, type Counter, fromConnectError, type Logger, MetricsRegistry } from "@junction/platform";
import type { OperationRecorder } from "@junction/platform/operations/operation-recorder";
import type { HttpFetch } from "./context.ts";
import type { ChannelRecord } from "./store/records.ts";
import type { ChannelStore } from "./store/store.ts";
import { callUpstream, refusal } from "./upstream-call.ts";

export type StopResult =
  | { outcome: "stopped" | "gone"; status: number }
  | { outcome: "failed"; status: number; code: string; message: string };

export interface UpstreamStopDeps {
  proxy: Client<typeof ProxyService>;
  /** The process's operations log: each stop is a `channel_call` operation. */
  operations?: OperationRecorder;
  store: ChannelStore;
  clock: Clock;
  logger: Logger;
  fetch: HttpFetch;
  /** Deadline of one upstream call, response body included. */
  timeoutMs: number;
  /** Counts the stops by integration and outcome (channelStops). */
  stops?: Counter;
  tokens: ChannelTokens;
}

/** The counter of channels Junction stopped upstream, by integration and outcome (stopped, gone, failed). */
export function channelStops(registry: MetricsRegistry | undefined): Counter {
  return (registry ?? new MetricsRegistry()).counter(
    "junction_channel_stops_total",
    "Channels stopped upstream by Junction, by integration and outcome (stopped, gone, failed).",
    ["integration", "outcome"],
  );
}

/**
 * Stops one channel upstream with its connection's credentials (resolved by the proxy service, so the
 * refresh rule applies; an upstream 401 forces one refresh and one retry), then records the outcome.
 * A 2xx stops it in the registry. So does a 404: the upstream answers it for a channel that is stopped
 * or expired already, and such a channel sends nothing more whatever the registry said (spec:
 * lifecycle, "Notifications cease"). Anything else leaves the registry as it was. Throws only when the
 * registry cannot be written.
 */
export async function stopUpstream(deps: UpstreamStopDeps, channel: ChannelRecord): Promise<StopResult> {
  const log = { channelId: channel.id, connectionId: channel.connectionId, integration: channel.providerConfigKey };
  let result: StopResult;
  try {
    result = await callStop(deps, channel);
  } catch (err) {
    const e = fromConnectError(err);
    const internal = e.code === "internal_error";
    if (internal) deps.logger.error("channel stop failed", { ...log, error: err });
    result = { outcome: "failed", status: 0, code: e.code, message: internal ? "internal error" : e.message };
  }
  deps.stops?.inc(channel.providerConfigKey, result.outcome);
  if (result.outcome !== "failed") {
    await deps.store.recordStop(channel.environmentId, channel.id, channel.resourceId, deps.clock.now());
    deps.logger.info(result.outcome === "gone" ? "channel gone upstream, recorded as stopped" : "channel stopped", log);
  } else {
    deps.logger.warn("channel not stopped", { ...log, status: result.status, code: result.code });
  }
  return result;
}

async function callStop(deps: UpstreamStopDeps, channel: ChannelRecord): Promise<StopResult> {
  const label = { action: "stop" as const, environmentId: channel.environmentId, channelId: channel.id, alsoFine: 404 };
  const res = await callUpstream(deps, channel, label, (provider) =>
    provider.stopCall({
      id: channel.id,
      resourceId: channel.resourceId,
      resourceUri: channel.resourceUri,
      connectionId: channel.connectionId,
      expirationMs: channel.expiration ?? 0,
      token: deps.tokens.open(channel),
    }),
  );
  if ("code" in res) return { outcome: "failed", ...res };
  if (res.status >= 200 && res.status <= 299) return { outcome: "stopped", status: res.status };
  if (res.status === 404) return { outcome: "gone", status: 404 };
  return { outcome: "failed", ...refusal(res) };
}
