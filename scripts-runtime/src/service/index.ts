export { createScriptsService, type ScriptsServiceInstance } from "./service.ts";
export type { ScriptsServiceDeps } from "./context.ts";
export { DEFAULT_SCRIPTS_CONFIG, loadScriptsConfig, type ScriptsConfig } from "./config.ts";
export { openScriptsStores, type ScriptsStores } from "./open-stores.ts";
export { type NotificationDispatcher, scriptsNotificationSink } from "./triggers/notification-sink.ts";
export { connectionCreatedMsgId } from "./triggers/script-jobs.ts";
export type { ScriptsServiceStore } from "./store/service-store.ts";
export { SqliteScriptsServiceStore } from "./store/sqlite-service-store.ts";
export { type ScriptsExtras, type ScriptsSpecConfig, scriptsSpec } from "./scripts-spec.ts";
