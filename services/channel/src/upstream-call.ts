import type { Client } from "@connectrpc/connect";
import type { ProxyService, ResolveUpstreamResponse } from "@junction/contracts/proxy/v1/proxy_service_pb";
import type { Clock } from "@junction/platform";
import type { OperationRecorder } from "@junction/platform/operations/operation-recorder";
import type { UpstreamCall } from "@junction/providers";
import { type ChannelCallLabel, recordChannelCall } from "./channel-call-operation.ts";
import { type ChannelProvider, channelProvider } from "./channel-providers.ts";
import type { HttpFetch } from "./context.ts";

export interface UpstreamCallDeps {
  proxy: Client<typeof ProxyService>;
  fetch: HttpFetch;
  /** Deadline of one upstream call, response body included. */
  timeoutMs: number;
  clock: Clock;
  /** The process's operations log: each call is a `channel_call` operation. */
  operations?: OperationRecorder;
}

/** A call that could not be made or was not answered: a stable code and a message without secrets. */
export interface UpstreamFailure {
  status: number;
  code: string;
  message: string;
}

/** The upstream's answer (any status). */
export interface UpstreamAnswer {
  status: number;
  body: Uint8Array;
}

/** The connection whose credentials a call is made with. */
export interface CallTarget {
  providerConfigKey: string;
  connectionId: string;
}

/**
 * Makes one channel call upstream with a connection's credentials, resolved by the proxy service (so
 * the refresh rule applies; an upstream 401 forces one refresh and one retry). `build` gets the
 * provider's channel adapter and returns the call, or a failure when the provider cannot make it.
 * Throws what the proxy service throws (unknown connection...).
 */
export async function callUpstream(
  deps: UpstreamCallDeps,
  target: CallTarget,
  label: ChannelCallLabel,
  build: (provider: ChannelProvider) => UpstreamCall | UpstreamFailure,
): Promise<UpstreamAnswer | UpstreamFailure> {
  const startedAtMs = deps.clock.now();
  const seen = { provider: "", attempts: 0 };
  let result: UpstreamAnswer | UpstreamFailure;
  try {
    result = await attemptCall(deps, target, build, seen);
  } catch (err) {
    recordChannelCall(deps, target, label, { ...seen, startedAtMs }, { thrown: err });
    throw err;
  }
  recordChannelCall(deps, target, label, { ...seen, startedAtMs }, result);
  return result;
}

/** The call itself; `seen` learns the connection's provider and how many requests were sent. */
async function attemptCall(
  deps: UpstreamCallDeps,
  target: CallTarget,
  build: (provider: ChannelProvider) => UpstreamCall | UpstreamFailure,
  seen: { provider: string; attempts: number },
): Promise<UpstreamAnswer | UpstreamFailure> {
  const resolve = (forceRefresh: boolean) => deps.proxy.resolveUpstream({ ...target, forceRefresh });
  let resolved = await resolve(false);
  seen.provider = resolved.provider;
  const provider = channelProvider(resolved.provider);
  if (!provider) {
    return {
      status: 0,
      code: "provider_has_no_channels",
      message: `Provider "${resolved.provider}" has no notification channels.`,
    };
  }
  const call = build(provider);
  if ("code" in call) return call;
  for (let refreshed = false; ; refreshed = true) {
    seen.attempts++;
    const res = await send(deps, resolved, call);
    if ("code" in res) return res;
    if (res.status === 401 && !refreshed) {
      resolved = await resolve(true);
      continue;
    }
    return res;
  }
}

/** Bytes of an upstream refusal kept in a failure's message. */
const REFUSAL_SNIPPET = 300;

/**
 * The failure of an answer that is not a 2xx, with the start of its body. `secret` (a channel's token,
 * which an upstream may echo) is cut out before the snippet is taken, so no part of it is kept.
 */
export function refusal(answer: UpstreamAnswer, secret = ""): UpstreamFailure {
  let text = new TextDecoder().decode(answer.body);
  if (secret) text = text.split(secret).join("[redacted]");
  return {
    status: answer.status,
    code: "upstream_refused",
    message: `The upstream answered ${answer.status}: ${text.slice(0, REFUSAL_SNIPPET)}`,
  };
}

async function send(
  deps: UpstreamCallDeps,
  resolved: ResolveUpstreamResponse,
  call: UpstreamCall,
): Promise<UpstreamAnswer | UpstreamFailure> {
  const url = `${resolved.baseUrl.replace(/\/+$/, "")}${call.path}`;
  const host = URL.canParse(url) ? new URL(url).host : "the upstream";
  try {
    const res = await deps.fetch(url, {
      method: call.method,
      headers: call.body === undefined ? resolved.headers : { ...resolved.headers, "content-type": "application/json" },
      body: call.body,
      redirect: "manual",
      signal: AbortSignal.timeout(deps.timeoutMs),
    });
    return { status: res.status, body: new Uint8Array(await res.arrayBuffer()) };
  } catch (err) {
    // Name the host only: the path, the body (a token) and the headers are not the caller's business here.
    const timedOut = err instanceof Error && (err.name === "TimeoutError" || err.name === "AbortError");
    return timedOut
      ? { status: 0, code: "upstream_timeout", message: `No answer from ${host} in time.` }
      : { status: 0, code: "upstream_unreachable", message: `Could not reach ${host}.` };
  }
}
