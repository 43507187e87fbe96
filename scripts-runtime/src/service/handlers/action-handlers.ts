import type { ServiceImpl } from "@connectrpc/connect";
import { toJson } from "@bufbuild/protobuf";
import { ValueSchema } from "@bufbuild/protobuf/wkt";
import type { ScriptsService } from "@junction/contracts/scripts/v1/scripts_service_pb";
import { invalidArgument, notFound } from "@junction/platform";
import { actionInputErrors } from "../../declaration/action-input.ts";
import type { JsonValue } from "../../runtime/run-types.ts";
import type { ScriptsServiceContext } from "../context.ts";
import { errors } from "../errors.ts";
import { toScriptRun } from "../mappers.ts";
import { callerOfRequest } from "../run-caller.ts";
import type { RunPlan, ScriptRunner } from "../script-runner.ts";
import { enqueueActionRun, MAX_ACTION_RETRIES } from "../triggers/action-runs.ts";
import { callService } from "./call-service.ts";
import { required } from "./record-scope.ts";

type Handlers = Pick<ServiceImpl<typeof ScriptsService>, "runAction">;

/**
 * RunAction (POST /action/trigger): runs the latest version of an action for one
 * connection. Synchronous calls wait for the run's end, which the run deadline bounds (the sandbox
 * kills a run past it); async calls answer with the run as recorded when queued (action-runs.ts).
 */
export function actionHandlers(ctx: ScriptsServiceContext, runner: ScriptRunner): Handlers {
  return {
    async runAction(req) {
      const env = await ctx.environment();
      const key = required(req.providerConfigKey, "provider_config_key");
      const connectionId = required(req.connectionId, "connection_id");
      const name = required(req.actionName, "action_name");
      await callService(ctx.clients().connection.getConnection({ providerConfigKey: key, connectionId }));
      const version = await ctx.scripts.getLatest(env, key, name);
      if (version?.declaration.kind !== "action") {
        const what = version ? ` "${name}" is a ${version.declaration.kind} script, not an action.` : "";
        throw notFound("unknown_action", `Integration "${key}" has no deployed action named "${name}".${what}`);
      }
      const caller = callerOfRequest(req.caller);
      const input = req.input === undefined ? undefined : (toJson(ValueSchema, req.input) as JsonValue);
      const schema = version.declaration.inputSchema;
      if (schema) {
        const problems = actionInputErrors(schema, input);
        if (problems.length > 0) {
          const first = problems[0] as { path: string; message: string };
          throw invalidArgument(
            "invalid_action_input",
            `The input does not match the input schema of action "${name}": ${first.path}: ${first.message}`,
            problems,
          );
        }
      }
      const plan: RunPlan = {
        version,
        connectionId,
        trigger: "action",
        entry: "exec",
        ...(input === undefined ? {} : { input }),
        ...(caller ? { caller } : {}),
      };
      if (req.async) {
        if (req.maxRetries < 0 || req.maxRetries > MAX_ACTION_RETRIES) {
          throw errors.invalidField("max_retries", `must be from 0 to ${MAX_ACTION_RETRIES}`);
        }
        const queued = await enqueueActionRun(ctx, runner, plan, req.maxRetries);
        return { run: toScriptRun(queued, false) };
      }
      const started = await runner.start(plan);
      const finished = await started.finished;
      // The caller has the input it sent: the answer does not carry it back.
      return { run: toScriptRun(finished.record, true, false) };
    },
  };
}
