export { createChannelService } from "./service.ts";
export type { ChannelServiceDeps } from "./context.ts";
export { openChannelStore } from "./open-store.ts";
export { applyChannelObserved, applyNotification, observeChannels } from "./channel-observer.ts";
export type { ChannelStore } from "./store/store.ts";
export type { ChannelFilter, ChannelRecord, ChannelState, ChannelWatch } from "./store/records.ts";
export { effectiveState } from "./store/lifecycle.ts";
export { SqliteChannelStore } from "./store/sqlite-store.ts";
export { MongoChannelStore } from "./store/mongo-store.ts";
