import { failedPrecondition, invalidArgument, notFound } from "@junction/platform";
import type { ScriptProblem } from "../compile/compiled-script.ts";

/** The scripts service's domain errors; the error boundary maps them to Connect codes. */
export const errors = {
  /** A script refused at upload, with the place in the file (spec: "the exact reason (file, line)"). */
  invalidScript: (problem: ScriptProblem) => {
    const place = `${problem.file}:${problem.line}:${problem.column}`;
    return invalidArgument("invalid_script", `${place}: ${problem.message}`, [
      { path: place, message: problem.message },
    ]);
  },
  invalidField: (path: string, message: string) =>
    invalidArgument("invalid_request", `${path} ${message}.`, [{ path, message }]),
  unknownScript: (key: string, name: string) =>
    notFound("unknown_script", `No script "${name}" is deployed for integration "${key}".`),
  unknownRun: (id: string) => notFound("unknown_run", `No script run with id "${id}".`),
  runNotRunning: (id: string, status: string) =>
    failedPrecondition(
      "run_not_running",
      `Script run "${id}" has ended (${status}); only a running run can be cancelled.`,
    ),
  unknownSync: (key: string, names: string[], detail = "") =>
    notFound(
      "unknown_sync",
      `Integration "${key}" has no deployed sync named ${names.map((n) => `"${n}"`).join(", ")}.${detail ? ` ${detail}` : ""}`,
    ),
  unknownConnection: (key: string, id: string) =>
    notFound("unknown_connection", `No connection "${id}" for integration "${key}".`),
  concurrentDeployment: () =>
    failedPrecondition(
      "concurrent_deployment",
      "A deployment is already in progress. Please wait for the current deployment to finish.",
    ),
  invalidFrequency: (reason: string) =>
    invalidArgument("invalid_frequency", `${reason}.`, [{ path: "frequency", message: reason }]),
};
