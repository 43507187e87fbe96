import type { ChannelCall } from "@junction/contracts/events/v1/events_pb";
import type { Logger } from "@junction/platform";
import type { ResolveKey } from "./resolve-cache.ts";

const EMPTY = Promise.resolve(new Uint8Array(0));

/** A proxied watch or stop call, as the proxy service's ReportChannelCall takes it. */
export interface ChannelCallReport extends ResolveKey {
  /** The integration's provider, from the resolve answer. */
  provider: string;
  /** The upstream path of the call. */
  path: string;
  call: ChannelCall;
  status: number;
  requestBody: Uint8Array;
  responseBody: Uint8Array;
}

/**
 * Reports a proxied watch or stop call to the proxy service, which publishes it for the channel
 * registry, once both bodies have been read (the response one as the caller reads it). Never throws:
 * the caller's answer does not depend on it.
 */
export async function reportChannelCall(
  report: (report: ChannelCallReport) => Promise<unknown>,
  ctx: { logger: Logger; requestId: string },
  key: ResolveKey,
  call: { provider: string; path: string; kind: ChannelCall },
  status: number,
  sent: Promise<Uint8Array> | undefined,
  received: Promise<Uint8Array> | undefined,
): Promise<void> {
  try {
    const [requestBody, responseBody] = await Promise.all([sent ?? EMPTY, received ?? EMPTY]);
    await report({
      call: call.kind,
      provider: call.provider,
      path: call.path,
      environmentId: key.environmentId,
      providerConfigKey: key.providerConfigKey,
      connectionId: key.connectionId,
      status,
      requestBody,
      responseBody,
    });
  } catch (err) {
    ctx.logger.error("channel call not reported", { requestId: ctx.requestId, error: err });
  }
}
