export { createChannelService } from "./service.ts";
export type { ChannelServiceDeps } from "./context.ts";
export { openChannelStore } from "./open-store.ts";
export { applyChannelObserved, applyNotification, observeChannels } from "./channel-observer.ts";
export type { ChannelStore } from "./store/store.ts";
export type { ChannelFilter, ChannelRecord, ChannelState, ChannelWatch } from "./store/records.ts";
export { effectiveState } from "./store/lifecycle.ts";
export { SqliteChannelStore } from "./store/sqlite-store.ts";
export { channelProvider } from "./channel-providers.ts";
export type { HttpFetch } from "./context.ts";
export {
  DEFAULT_SWEEP_INTERVAL_MS,
  type ExpirySweepDeps,
  type ExpirySweeps,
  type SweepReport,
  startExpirySweeps,
  sweepChannels,
} from "./expiry-sweep.ts";
export { expiryWarningBody } from "./expiry-webhook.ts";
export { type ChannelConfig, loadChannelConfig } from "./config.ts";
export {
  createManagedChannels,
  DEFAULT_MANAGED_POLL_MS,
  type ManagedChannels,
  type ManagedChannelsDeps,
} from "./managed/managed-channels.ts";
export type { ManagedSlot, ManagedSlotKey } from "./store/managed-records.ts";
export { channelEventBody, type ChannelOperation } from "./managed/managed-webhook.ts";
export { registerChannelGauges } from "./channel-gauges.ts";
export { ChannelTokens } from "./channel-tokens.ts";
export { type ResealCounts, resealChannelTokens } from "./reseal-tokens.ts";
