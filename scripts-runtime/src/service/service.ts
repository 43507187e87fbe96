import { hostname } from "node:os";
import type { ServiceImpl } from "@connectrpc/connect";
import type { Subscription } from "@junction/bus";
import type { ScriptsService } from "@junction/contracts/scripts/v1/scripts_service_pb";
import { randomToken } from "@junction/platform";
import { proxyMetrics } from "@junction/upstream-proxy";
import { RecordChanges, signallingStore } from "../records/record-changes.ts";
import type { RunLimits } from "../runtime/run-types.ts";
import { ScriptRuntime } from "../runtime/script-runtime.ts";
import type { ScriptsServiceContext, ScriptsServiceDeps } from "./context.ts";
import { actionHandlers } from "./handlers/action-handlers.ts";
import { RecordFeeds } from "./handlers/record-feeds.ts";
import { recordHandlers } from "./handlers/record-handlers.ts";
import { retentionHandlers } from "./handlers/retention-handlers.ts";
import { watchRecordsHandler } from "./handlers/watch-records.ts";
import { runHandlers } from "./handlers/run-handlers.ts";
import { deployBundlesHandler } from "./deploy/deploy-bundles.ts";
import { scriptHandlers } from "./handlers/script-handlers.ts";
import { syncControlHandlers } from "./handlers/sync-control-handlers.ts";
import { triggerHandlers } from "./handlers/trigger-handlers.ts";
import { createScriptProxy } from "./host/proxy-call.ts";
import { RetentionSweep } from "./scheduler/retention-sweep.ts";
import { sweepInterruptedRuns } from "./scheduler/interrupted-runs.ts";
import { SyncRuns } from "./scheduler/sync-runs.ts";
import { SyncScheduler } from "./scheduler/sync-scheduler.ts";
import { ScriptRunner } from "./script-runner.ts";
import { startScriptJobWorker } from "./triggers/script-job-worker.ts";

/** The scripts service: its RPC implementation, and start/stop for its scheduler and queue worker. */
export interface ScriptsServiceInstance {
  service: ServiceImpl<typeof ScriptsService>;
  /** Starts the sync scheduler and the consumer of `scripts.runs`. */
  start(): Promise<void>;
  /**
   * Stops them, stops the sandbox (sync runs in progress end `interrupted`, others `crashed`) and waits
   * until runs are recorded.
   */
  stop(): Promise<void>;
}

/**
 * Builds the scripts service: deploys scripts, runs them on every trigger through one
 * ScriptRunner, and records every run. The sandbox pool is started on first use, so that a Junction
 * without scripts never starts a sandbox process.
 */
export function createScriptsService(deps: ScriptsServiceDeps): ScriptsServiceInstance {
  const limits: RunLimits = {
    timeoutMs: deps.config.timeoutMs,
    memoryBytes: deps.config.memoryMb * 1024 * 1024,
    maxLogBytes: deps.config.maxLogBytes,
  };
  const sandbox = sandboxOnFirstUse(deps, limits);
  const ctx = scriptsContext(deps, deps.runtime ?? sandbox.runtime, limits);
  const runner = new ScriptRunner(ctx);
  const syncs = new SyncRuns(ctx, runner);
  const scheduler = new SyncScheduler(ctx, syncs, () => sweepInterruptedRuns(ctx, runner, syncs));
  const service: ServiceImpl<typeof ScriptsService> = {
    ...scriptHandlers(ctx, scheduler),
    ...deployBundlesHandler(ctx, scheduler),
    ...runHandlers(ctx, runner),
    ...triggerHandlers(ctx, runner, syncs),
    ...syncControlHandlers(ctx, syncs, scheduler),
    ...actionHandlers(ctx, runner),
    ...recordHandlers(ctx),
    ...watchRecordsHandler(ctx),
    ...retentionHandlers(ctx),
  };
  const retention = new RetentionSweep(ctx);
  let worker: Subscription | undefined;

  return {
    service,
    async start() {
      worker = await startScriptJobWorker(ctx, runner, scheduler);
      scheduler.start();
      retention.start();
    },
    async stop() {
      ctx.recordFeeds.closeAll();
      scheduler.stop();
      await retention.stop();
      runner.stopping();
      await worker?.stop();
      worker = undefined;
      await sandbox.close();
      await runner.drain();
    },
  };
}

/** The sandbox, started by the first script validated or run (and again after a start that failed). */
function sandboxOnFirstUse(
  deps: ScriptsServiceDeps,
  limits: RunLimits,
): { runtime: () => Promise<ScriptRuntime>; close(): Promise<void> } {
  let started: Promise<ScriptRuntime> | undefined;
  const runtime = () => {
    started ??= ScriptRuntime.start({
      poolSize: deps.config.poolSize,
      reservedProcesses: deps.config.reservedProcesses,
      maxRunsPerIntegration: deps.config.maxRunsPerIntegration,
      maxRunsPerScript: deps.config.maxRunsPerScript,
      queueTimeoutMs: deps.config.queueTimeoutMs,
      hostCalls: {
        maxConcurrent: deps.config.hostCallConcurrency,
        maxBytesInFlight: deps.config.hostCallBytesMb * 1024 * 1024,
      },
      limits,
      clock: deps.clock,
      logger: deps.logger.child({ component: "sandbox" }),
    }).catch((err: unknown) => {
      started = undefined;
      throw err;
    });
    return started;
  };
  const close = async () => {
    if (started) await (await started.catch(() => undefined))?.close();
  };
  return { runtime, close };
}

/** The handlers' and workers' context: the deps with the record feeds, the runtime, the limits and the proxy. */
function scriptsContext(
  deps: ScriptsServiceDeps,
  runtime: () => Promise<ScriptRuntime>,
  limits: RunLimits,
): ScriptsServiceContext {
  let environmentId: Promise<string> | undefined;
  const recordChanges = new RecordChanges();
  return {
    ...deps,
    records: signallingStore(deps.records, recordChanges),
    recordChanges,
    recordFeeds: new RecordFeeds(deps.config.recordFeedsMax),
    environment: () => {
      // The environment never changes: asked once, asked again only after a failure.
      environmentId ??= deps.environment().catch((err: unknown) => {
        environmentId = undefined;
        throw err;
      });
      return environmentId;
    },
    runtime,
    instanceId: deps.instanceId ?? `${hostname()}-${process.pid}-${randomToken(6)}`,
    limits,
    proxy: createScriptProxy({
      clock: deps.clock,
      settings: deps.proxySettings,
      ...(deps.metrics ? { metrics: proxyMetrics(deps.metrics) } : {}),
      ...(deps.tracing ? { tracing: deps.tracing } : {}),
    }),
  };
}
