import { LogsService } from "@junction/contracts/logs/v1/logs_service_pb";
import { queues } from "@junction/bus/subjects";
import {
  createLogsService,
  type LogsConfig,
  loadLogsConfig,
  OperationsLog,
  type OperationStore,
  openEmbeddedOperationStore,
  openOperationStore,
  operationBatchHandler,
  settlesWithin,
} from "@junction/logs-service";
import type { Subscription } from "@junction/bus";
import type { ServiceSpec } from "@junction/wiring";

/** Longest wait at stop for the recorded operations to reach the store. */
const STOP_WAIT_MS = 10_000;

/**
 * The logs service in the service table: the operations log's store, its retention and its reads.
 * Its own process records straight into the store; in the distributed topology every other process's
 * batches come on the `logs.operations` queue. Embedded, the store is the log's own file written on a thread
 * of its own (openEmbeddedOperationStore); distributed, the process's own file or MongoDB.
 */
export const logsSpec: ServiceSpec<LogsConfig, { log: OperationsLog; store: OperationStore }> = {
  name: "logs",
  defaultPort: 4106,
  needs: { clients: [], bus: true, encryptor: true, database: true },
  config: (env) => loadLogsConfig(env),
  async build(ctx, config) {
    const store = ctx.embedded
      ? await openEmbeddedOperationStore(ctx.common, {
          legacy: ctx.db,
          writerThread: config.writerThread,
          logger: ctx.logger,
          metrics: ctx.metrics,
        })
      : await openOperationStore(ctx.common, ctx.db);
    const log = new OperationsLog(store, config, ctx.clock, ctx.logger);
    const impl = createLogsService({ store, config, clock: ctx.clock, encryptor: ctx.encryptor });
    let consumer: Subscription | undefined;
    return {
      routes: (r) => r.service(LogsService, impl),
      async start() {
        await log.start();
        ctx.operations.attach(log.sink());
        if (!ctx.embedded)
          consumer = await ctx.bus.consume(
            queues.logsOperations,
            operationBatchHandler((b) => log.ingest(b)),
          );
      },
      async stop() {
        await consumer?.stop();
        // What was recorded goes in before the store closes; a writer thread that does not answer must not hold
        // the process's stop: past the wait the store is closed, which stops it and fails what it held.
        if (!(await settlesWithin(ctx.operations.flushed(), STOP_WAIT_MS))) {
          ctx.logger.warn("operations log did not take the last operations in time; they are lost");
          await store.close();
          await ctx.operations.flushed();
        }
        log.stop();
      },
      close: () => store.close(),
      parts: { log, store },
    };
  },
};
