export { busOperationSink, operationBatchHandler } from "./bus-sink.ts";
export { DEFAULT_LOGS_CONFIG, type LogsConfig, loadLogsConfig } from "./config.ts";
export { OperationsLog } from "./operations-log.ts";
export { openEmbeddedOperationStore, openOperationStore } from "./open-store.ts";
export { settlesWithin } from "./settles-within.ts";
export { createLogsService } from "./service.ts";
export type { OperationStore } from "./store/operation-store.ts";
