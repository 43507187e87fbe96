import { create } from "@bufbuild/protobuf";
import { type Channel, ChannelSchema, ChannelState } from "@junction/contracts/channel/v1/channel_service_pb";
import type { ChannelRecord, ChannelState as StoredState } from "./store/records.ts";

const TO_PROTO: Record<StoredState, ChannelState> = {
  active: ChannelState.ACTIVE,
  stopped: ChannelState.STOPPED,
  expired: ChannelState.EXPIRED,
};

/** The stored state a proto state filters on; undefined for UNSPECIFIED (every state). */
export function stateFilter(state: ChannelState): StoredState | undefined {
  return (Object.keys(TO_PROTO) as StoredState[]).find((s) => TO_PROTO[s] === state);
}

/** The proto Channel of a record (read with its effective state). The token is never exposed. */
export function toChannel(rec: ChannelRecord): Channel {
  return create(ChannelSchema, {
    id: rec.id,
    resourceId: rec.resourceId,
    providerConfigKey: rec.providerConfigKey,
    connectionId: rec.connectionId,
    resourceUri: rec.resourceUri,
    expirationMs: BigInt(rec.expiration ?? 0),
    state: TO_PROTO[rec.state],
    createdAtMs: BigInt(rec.createdAt),
    lastMessageNumber: BigInt(rec.lastMessageNumber),
    stoppedAtMs: BigInt(rec.stoppedAt ?? 0),
    expiryWarnedAtMs: BigInt(rec.expiryWarnedAt ?? 0),
  });
}
