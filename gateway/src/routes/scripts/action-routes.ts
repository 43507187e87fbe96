import { fromJson, type JsonValue } from "@bufbuild/protobuf";
import { ValueSchema } from "@bufbuild/protobuf/wkt";
import { RunStatus, RunTrigger } from "@junction/contracts/scripts/v1/scripts_service_pb";
import { fromConnectError, invalidArgument, JunctionError, notFound } from "@junction/platform";
import { z } from "zod";
import { json } from "../../http/json.ts";
import { parseWith, readJson } from "../../http/read-json.ts";
import type { RouteDoc } from "../../openapi/route-doc.ts";
import type { Route, RouteContext } from "../../router.ts";
import { ACTION_FAILURE_CODES, actionAnswer } from "./action-answer.ts";
import { keyCaller } from "./run-caller.ts";

/** Nango's body: the action's name and its input (any JSON; exec's second argument). */
const triggerBody = z.object({ action_name: z.string().min(1).max(255), input: z.unknown().optional() });
const TRUE = ["true", "1", "yes", "on"];
const FALSE = ["false", "0", "no", "off", ""];
const MAX_INPUT_BYTES = 2 * 1024 * 1024;
/** The headers the route reads (by hand below; for the document). */
const triggerHeaders = z.object({
  "provider-config-key": z.string().describe("The integration's id."),
  "connection-id": z.string().describe("The connection's id."),
  "x-async": z.string().optional().describe("`true`: answer 202 at once, then ask GET /action/{id}."),
  "x-max-retries": z
    .string()
    .optional()
    .describe("With X-Async: how many times a failed run is tried again, 0 (default) to 5."),
});
const output = z.unknown().describe("What the action's exec returned (any JSON).");
const asyncAnswer = z.object({ id: z.string(), statusUrl: z.string() }).describe("Also in `Location`.");

/**
 * POST /action/trigger runs an action for a connection (`Provider-Config-Key`, `Connection-Id`) and
 * answers its output, or its failure (actionAnswer). With `X-Async: true` it answers 202
 * `{id, statusUrl}` at once (the run is queued, retried up to `X-Max-Retries` times, 0–5, and an
 * `async_action` webhook says when it has ended); GET /action/{id} then answers 404
 * `action_not_completed` until the run has ended, then what the synchronous call would have.
 */
export function actionRoutes(): Route[] {
  return [
    { method: "POST", pattern: "/action/trigger", handler: triggerAction, doc: triggerDoc },
    { method: "GET", pattern: "/action/:id", handler: actionRunAnswer, doc: runAnswerDoc },
  ];
}

/** Runs the action, or queues it with X-Async. */
async function triggerAction(ctx: RouteContext): Promise<Response> {
  const { req, clients } = ctx;
  const providerConfigKey = req.headers.get("provider-config-key")?.trim();
  if (!providerConfigKey) {
    throw invalidArgument("missing_provider_config_key", "Missing the Provider-Config-Key header.");
  }
  const connectionId = req.headers.get("connection-id")?.trim();
  if (!connectionId) throw invalidArgument("missing_connection_id", "Missing the Connection-Id header.");
  const async = asyncHeader(req.headers.get("x-async"));
  const maxRetries = maxRetriesHeader(req.headers.get("x-max-retries"));
  const body = parseWith(triggerBody, await readJson(req, MAX_INPUT_BYTES), "invalid_body", "body");
  const { run } = await clients.scripts.runAction({
    providerConfigKey,
    connectionId,
    actionName: body.action_name,
    ...(body.input === undefined ? {} : { input: fromJson(ValueSchema, body.input as JsonValue) }),
    async,
    maxRetries: async ? maxRetries : 0,
    caller: keyCaller(ctx),
  });
  if (!run) throw new Error("RunAction answered no run");
  if (async) {
    const statusUrl = `/action/${run.id}`;
    return json({ id: run.id, statusUrl }, 202, { location: statusUrl });
  }
  return actionAnswer(run);
}

/** A run's answer once it has ended; 404 `action_not_completed` before. */
async function actionRunAnswer({ params, clients }: RouteContext): Promise<Response> {
  const id = params.id as string;
  const unknown = notFound("unknown_action_run", `No action run with id "${id}".`);
  if (!/^run_[A-Za-z0-9]+$/.test(id)) throw unknown;
  const { run } = await clients.scripts.getRun({ id }).catch((err: unknown) => {
    const domain = err instanceof JunctionError ? err : fromConnectError(err);
    throw domain.code === "unknown_run" || domain.code === "invalid_id" ? unknown : err;
  });
  if (!run || run.trigger !== RunTrigger.ACTION) throw unknown;
  if (run.status === RunStatus.RUNNING) {
    throw notFound("action_not_completed", `Action not completed yet (run ${id}).`);
  }
  return actionAnswer(run);
}

const triggerDoc: RouteDoc = {
  summary: "Run an action",
  description:
    "Answers what the action returned, or its failure (with its `run_id`); with `X-Async: true`, 202 at once: the run is queued, tried again on failure up to `X-Max-Retries` times, and an `async_action` webhook is sent when it has ended.",
  tags: ["Actions"],
  headers: triggerHeaders,
  body: triggerBody,
  responses: { 200: output, 202: asyncAnswer },
  errors: [
    "missing_provider_config_key",
    "missing_connection_id",
    "invalid_headers",
    "unknown_provider_config",
    "unknown_connection",
    "unknown_action",
    "invalid_action_input",
    ...ACTION_FAILURE_CODES,
  ],
};

const runAnswerDoc: RouteDoc = {
  summary: "Get an action run's answer",
  description:
    "What POST /action/trigger would have answered; 404 `action_not_completed` while the run is queued, running or waiting for a retry.",
  tags: ["Actions"],
  params: { id: "The run's id (`run_...`), as POST /action/trigger with X-Async answered it." },
  responses: { 200: output },
  errors: ["unknown_action_run", "action_not_completed", ...ACTION_FAILURE_CODES],
};

function asyncHeader(value: string | null): boolean {
  const v = (value ?? "").trim().toLowerCase();
  if (TRUE.includes(v)) return true;
  if (FALSE.includes(v)) return false;
  throw invalidArgument("invalid_headers", "X-Async must be true or false.", [
    { location: "header", path: "x-async", message: "must be true or false" },
  ]);
}

function maxRetriesHeader(value: string | null): number {
  if (value === null || value.trim() === "") return 0;
  const n = Number(value);
  if (Number.isInteger(n) && n >= 0 && n <= 5) return n;
  throw invalidArgument("invalid_headers", "X-Max-Retries must be a whole number from 0 to 5.", [
    { location: "header", path: "x-max-retries", message: "must be a whole number from 0 to 5" },
  ]);
}
