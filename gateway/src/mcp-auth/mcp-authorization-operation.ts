import type { OperationMessage, OperationStatus } from "@junction/platform/operations/operation";
import type { McpAuth } from "./mcp-auth.ts";
import type { McpServerGrant } from "./mcp-auth-store.ts";

/** Where an MCP client's authorization ended: its request, the end user's consent, the code's exchange, a refresh. */
export type McpStep = "start" | "consent" | "exchange" | "refresh";

/** What is known of one MCP authorization request when it ends. */
export interface McpAttempt {
  /** The route as its pattern: `GET /mcp/oauth/authorize`. */
  route: string;
  step: McpStep;
  startedAtMs: number;
  /** The client the request names (a registered id or its metadata document's URL), when it names one. */
  clientId?: string | undefined;
  /** The MCP URL it is for, once known: its end user and environment. */
  server?: McpServerGrant | undefined;
}

/** How it ended: authorized (a code exchanged, a token refreshed), or the OAuth error answered and its HTTP status. */
export type McpEnd = { ok: true } | { ok: false; code: string; message: string; status: number };

/**
 * Records one MCP client's authorization in the operations log, once, where it ends: kind `authorization`
 * (`token_refresh` for a refresh), `success` when tokens were issued, `failed` when the end user denied it (as a
 * declined consent at a provider is), `refused` for a request Junction refused. The end user and environment of
 * the MCP URL when known, its id as the tag `mcp_url:<id>`, the client in the message. Never a code, a verifier,
 * a token or the query: the route, the step, the OAuth error and our own words.
 */
export function recordMcpAuthorization(auth: McpAuth, attempt: McpAttempt, end: McpEnd): void {
  const recorder = auth.operations;
  if (!recorder?.enabled) return;
  const now = auth.now();
  const { server, step } = attempt;
  const status: OperationStatus = end.ok ? "success" : end.code === "access_denied" ? "failed" : "refused";
  const refresh = step === "refresh";
  const fields = {
    step,
    route: attempt.route,
    ...(attempt.clientId ? { client: attempt.clientId } : {}),
    ...(end.ok ? {} : { error: end.code, status: end.status }),
  };
  const message: OperationMessage = end.ok
    ? { atMs: now, level: "info", text: refresh ? "tokens refreshed" : "tokens issued", fields }
    : { atMs: now, level: "warn", text: end.message, fields };
  recorder.record({
    kind: refresh ? "token_refresh" : "authorization",
    status,
    startedAtMs: Math.min(attempt.startedAtMs, now),
    environmentId: server?.environmentId ?? "",
    integration: "",
    connection: "",
    endUser: server?.endUser.id ?? "",
    tags: server ? [`mcp_url:${server.id}`] : [],
    title: title(step, end),
    messages: [message],
  });
}

function title(step: McpStep, end: McpEnd): string {
  if (step === "refresh") return end.ok ? "MCP client: token refreshed" : `MCP client: refresh refused: ${end.code}`;
  return end.ok ? "MCP client: authorized" : `MCP client: authorization failed at ${step}: ${end.code}`;
}
