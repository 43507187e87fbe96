import { sha256Hex, JunctionError } from "@junction/platform";
import type { OperationMessage, OperationStatus } from "@junction/platform/operations/operation";
import type { ConnectionServiceContext } from "../context.ts";
import type { ConnectSessionRecord } from "../store/records.ts";

/** Where an authorization attempt ended: its first request, the consent, the code's exchange, the save, a form. */
export type AuthorizationStep = "start" | "callback" | "consent" | "exchange" | "save" | "form";

/** What is known of one authorization attempt when it ends. */
export interface AuthorizationFacts {
  startedAtMs: number;
  /** When it ended, if not now: an abandoned attempt ended when its state expired. */
  endedAtMs?: number;
  /** How the credentials were given: `OAUTH2` (the consent screen), else the form's auth mode; "" when unknown. */
  authMode: string;
  environmentId?: string;
  integration?: string;
  connection?: string;
  session?: ConnectSessionRecord | null;
}

/** How it ended. Never a token, a code, a client secret or the token endpoint's body: codes and our own words. */
export type AuthorizationEnd =
  | { ok: true; created: boolean }
  | {
      ok: false;
      step: AuthorizationStep;
      code: string;
      message: string;
      /** What the code does not say: the provider's OAuth error, the configuration's error code. */
      cause?: string;
    };

/** Nothing could tie these to an attempt started here (a state or session Junction never gave): a refused input. */
const REFUSED = new Set(["missing_state", "unknown_state", "state_already_used", "unknown_connect_session_token"]);

/**
 * Records one authorization attempt in the operations log (kind `authorization`), once, where it ends:
 * its integration, connection, end user and the session's tags; on failure the step and its stable code.
 */
export function recordAuthorization(
  ctx: Pick<ConnectionServiceContext, "operations" | "clock">,
  facts: AuthorizationFacts,
  end: AuthorizationEnd,
) {
  const recorder = ctx.operations;
  if (!recorder?.enabled) return;
  const now = Math.min(facts.endedAtMs ?? Number.POSITIVE_INFINITY, ctx.clock.now());
  const status: OperationStatus = end.ok ? "success" : REFUSED.has(end.code) ? "refused" : "failed";
  const session = facts.session;
  const endUserId = session?.endUser?.id;
  const what = facts.integration ? `${facts.integration}: ` : "";
  const message: OperationMessage = end.ok
    ? {
        atMs: now,
        level: "info",
        text: end.created ? "connection created" : "connection re-authorized",
        ...(facts.authMode ? { fields: { authMode: facts.authMode } } : {}),
      }
    : {
        atMs: now,
        level: "warn",
        text: end.message,
        fields: {
          step: end.step,
          error: end.code,
          ...(facts.authMode ? { authMode: facts.authMode } : {}),
          ...(end.cause ? { cause: end.cause } : {}),
        },
      };
  recorder.record({
    kind: "authorization",
    status,
    startedAtMs: Math.min(facts.startedAtMs, now),
    durationMs: Math.max(0, now - facts.startedAtMs),
    environmentId: facts.environmentId ?? session?.environmentId ?? "",
    integration: facts.integration ?? "",
    connection: facts.connection ?? "",
    endUser: typeof endUserId === "string" ? endUserId : "",
    tags: Object.entries(session?.tags ?? {}).map(([k, v]) => `${k}:${v}`),
    title: end.ok
      ? `${what}${end.created ? "connected" : "re-authorized"}`
      : `${what}authorization failed at ${end.step}: ${end.code}`,
    messages: [message],
  });
}

/** A thrown error as the end of an attempt: its stable code and message; an unexpected one says no more than that. */
export function thrownEnd(err: unknown, step: AuthorizationStep): AuthorizationEnd {
  if (err instanceof JunctionError && err.code !== "internal_error") {
    return { ok: false, step, code: err.code, message: err.message };
  }
  return { ok: false, step, code: "internal_error", message: "internal error" };
}

/** The live or expired session a token names, if any (for the record of an attempt that failed). */
async function sessionOf(ctx: ConnectionServiceContext, token: string): Promise<ConnectSessionRecord | null> {
  if (!token) return null;
  try {
    return await ctx.store.getConnectSessionByTokenHash(sha256Hex(token));
  } catch {
    return null;
  }
}

/**
 * Runs the first request of an attempt (the start of a consent flow, a form); when it throws, the attempt
 * ended there: recorded with the session it named (if any), then the error goes on to the caller.
 */
export async function recordingFailure<T>(
  ctx: ConnectionServiceContext,
  attempt: { token: string; integration: string; step: AuthorizationStep; authMode: string },
  run: () => Promise<T>,
): Promise<T> {
  const startedAtMs = ctx.clock.now();
  try {
    return await run();
  } catch (err) {
    // Not an end: the gateway takes the browser on to the integration's form, where the attempt goes on.
    if (err instanceof JunctionError && err.code === "not_an_authorization_flow") throw err;
    const session = await sessionOf(ctx, attempt.token);
    recordAuthorization(
      ctx,
      {
        startedAtMs,
        authMode: attempt.authMode,
        integration: attempt.integration,
        connection: session?.reconnect?.connectionId ?? "",
        session,
      },
      thrownEnd(err, attempt.step),
    );
    throw err;
  }
}
