import { create, toBinary } from "@bufbuild/protobuf";
import { type Bus, subjects } from "@junction/bus";
import { ChannelCall, ChannelObservedSchema } from "@junction/contracts/events/v1/events_pb";
import type { ReportChannelCallRequest } from "@junction/contracts/proxy/v1/proxy_service_pb";
import { type Clock, invalidArgument, type Logger } from "@junction/platform";
import { type ChannelCallFacts, channelAdapters, providerAdapter } from "@junction/providers";

export interface ReportDeps {
  bus: Bus;
  clock: Clock;
  logger: Logger;
}

/**
 * The channel a reported call names, as the channel adapter of the call's provider reads it; a report
 * that names no provider is read by the first channel adapter that reads one. Null when none does.
 */
function readChannelCall(req: ReportChannelCallRequest): ChannelCallFacts | null {
  const context = { path: req.path, connectionId: req.connectionId };
  if (req.provider !== "") {
    const channels = providerAdapter(req.provider)?.channels;
    return channels?.readCall(req.call, req.requestBody, req.responseBody, context) ?? null;
  }
  for (const channels of channelAdapters()) {
    const facts = channels.readCall(req.call, req.requestBody, req.responseBody, context);
    if (facts) return facts;
  }
  return null;
}

const REPORTED = new Set<ChannelCall>([ChannelCall.WATCH, ChannelCall.RENEW, ChannelCall.STOP]);

/**
 * ReportChannelCall: turns a proxied watch, renewal or stop call into a ChannelObserved event for the
 * channel registry (services/channel observeChannels). Failed calls are published too, with their
 * status: the registry decides what a status means.
 */
export async function reportChannelCall(deps: ReportDeps, req: ReportChannelCallRequest): Promise<boolean> {
  if (!REPORTED.has(req.call)) {
    throw invalidArgument("invalid_channel_call", "call must be WATCH, RENEW or STOP.", [
      { path: "call", message: "must be WATCH, RENEW or STOP" },
    ]);
  }
  if (!req.environmentId || !req.providerConfigKey) {
    throw invalidArgument("invalid_channel_call", "environment_id and provider_config_key are required.");
  }
  const facts = readChannelCall(req);
  if (!facts) {
    deps.logger.info("channel call without a channel id not reported", {
      call: ChannelCall[req.call],
      providerConfigKey: req.providerConfigKey,
      status: req.status,
    });
    return false;
  }
  const event = create(ChannelObservedSchema, {
    call: req.call,
    environmentId: req.environmentId,
    providerConfigKey: req.providerConfigKey,
    connectionId: req.connectionId,
    channelId: facts.channelId,
    resourceId: facts.resourceId,
    resourceUri: facts.resourceUri,
    expirationMs: BigInt(facts.expirationMs),
    status: req.status,
    token: facts.token,
    atMs: BigInt(deps.clock.now()),
  });
  await deps.bus.publish(subjects.channelObserved(req.providerConfigKey), toBinary(ChannelObservedSchema, event));
  return true;
}
