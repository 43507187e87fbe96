import type { ServiceImpl } from "@connectrpc/connect";
import type { ScriptsService } from "@junction/contracts/scripts/v1/scripts_service_pb";
import type { ScriptsServiceContext } from "../context.ts";
import type { ScriptRunner } from "../script-runner.ts";
import { cancelRun } from "./run/cancel-run.ts";
import { getRun, listRuns } from "./run/read-runs.ts";

type Handlers = Pick<ServiceImpl<typeof ScriptsService>, "listRuns" | "getRun" | "cancelRun">;

/**
 * ListRuns and GetRun: the record of runs (spec: "Every run is recorded"); CancelRun (a long-running run is visible and cancellable).
 */
export function runHandlers(ctx: ScriptsServiceContext, runner: ScriptRunner): Handlers {
  return {
    listRuns: (req) => listRuns(ctx, req),
    getRun: (req) => getRun(ctx, req),
    cancelRun: (req) => cancelRun(ctx, runner, req),
  };
}
