import { LogsService } from "@junction/contracts/logs/v1/logs_service_pb";
import { queues } from "@junction/bus/subjects";
import {
  createLogsService,
  type LogsConfig,
  loadLogsConfig,
  OperationsLog,
  type OperationStore,
  openOperationStore,
  operationBatchHandler,
} from "@junction/logs-service";
import type { Subscription } from "@junction/bus";
import type { ServiceSpec } from "@junction/wiring";

/**
 * The logs service in the service table: the operations log's store, its retention and its reads.
 * Its own process records straight into the store; in the distributed topology every other process's
 * batches come on the `logs.operations` queue.
 */
export const logsSpec: ServiceSpec<LogsConfig, { log: OperationsLog; store: OperationStore }> = {
  name: "logs",
  defaultPort: 4106,
  needs: { clients: [], bus: true, encryptor: true, database: true },
  config: (env) => loadLogsConfig(env),
  async build(ctx, config) {
    const store = await openOperationStore(ctx.common, ctx.db);
    const log = new OperationsLog(store, config, ctx.clock, ctx.logger);
    const impl = createLogsService({ store, config, clock: ctx.clock, encryptor: ctx.encryptor });
    let consumer: Subscription | undefined;
    return {
      routes: (r) => r.service(LogsService, impl),
      async start() {
        await log.start();
        ctx.operations.attach((batch) => log.ingest(batch));
        if (!ctx.embedded)
          consumer = await ctx.bus.consume(
            queues.logsOperations,
            operationBatchHandler((b) => log.ingest(b)),
          );
      },
      async stop() {
        await consumer?.stop();
        await ctx.operations.flushed();
        log.stop();
      },
      close: () => store.close(),
      parts: { log, store },
    };
  },
};
