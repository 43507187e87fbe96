import type { Clock } from "@junction/platform";
import { fromConnectError } from "@junction/platform";
import type { ExpiringCache } from "@junction/platform";
import type { OperationRecorder } from "@junction/platform/operations/operation-recorder";
import { httpStatus } from "../../http/error-response.ts";
import { connectSessionBearer } from "../../middleware/connect-session-bearer.ts";
import type { RouteContext } from "../../router.ts";
import { NO_SESSION, sessionParty } from "./session-party.ts";

/** What the authorization routes record a refusal with: the process's recorder and clock. */
export interface RefusalLog {
  operations?: OperationRecorder | undefined;
  clock: Clock;
  /**
   * The dead session tokens (unknown or expired) refused lately, by code and token: a page that reads several
   * routes with one such token (the Connect UI opens with two reads at once) is one refusal in the log, not
   * one per read. Absent: every refusal is recorded.
   */
  deadTokens?: ExpiringCache<string, true>;
}

/** How long a dead token's refusal stands for the ones that follow it. */
export const DEAD_TOKEN_QUIET_MS = 60_000;

/** A token no session has: longer than any the connection service issues (not looked up). */
const MAX_TOKEN_LENGTH = 512;

/**
 * One request on an authorization route (the start of a consent, a connect form, a credential route, the
 * Connect UI's reads of its session). The connection service records an attempt's end once the attempt is
 * handed to it (`handOver`, just before the call that starts or submits it); what the gateway refuses before
 * that (a malformed query or body, a session that does not allow the integration, a route of the wrong auth
 * mode) is recorded here, by `refused`: an `authorization` operation with status `refused`, step `start` and
 * the 4xx's stable code. When the request names a connect session token of a known, unexpired session, the
 * operation has its environment, end user and tags (looked up then: a refusal is rare, a request is not).
 * Never the query, a body or a token: the route, the integration of the path, the code and its message.
 */
export class GatewayAttempt {
  private readonly startedAtMs: number;
  private handedOver = false;
  private token: string | undefined;

  constructor(
    private readonly log: RefusalLog,
    private readonly ctx: RouteContext,
    /** The route as its pattern: `POST /api-auth/api-key/:integration`. */
    private readonly route: string,
    /** The auth mode the route is for, when it is for one. */
    private readonly authMode = "",
  ) {
    this.startedAtMs = log.clock.now();
  }

  /** The session token the request names where the query and the bearer do not (a form's body). */
  names(token: string | undefined): void {
    if (token) this.token = token;
  }

  /** From here the connection service has the attempt, and records how it ends. */
  handOver(): void {
    this.handedOver = true;
  }

  /**
   * The route answers `err`: recorded when the gateway refused it itself (a 4xx before the hand-over), or when
   * `answeredHere` says the gateway turns the service's answer into the attempt's end (the service does not
   * record a start for the wrong auth mode, since a browser is taken on to the form instead). Resolves once
   * recorded (the session's lookup, when there is one, comes first).
   */
  async refused(err: unknown, answeredHere = false): Promise<void> {
    const recorder = this.log.operations;
    if (!recorder?.enabled || (this.handedOver && !answeredHere)) return;
    const failure = fromConnectError(err);
    const status = httpStatus(failure.code, failure.status);
    if (status < 400 || status >= 500) return;
    if (this.refusedLately(failure.code)) return;
    const party = await sessionParty(this.ctx.clients, this.sessionToken(), failure.code);
    const now = this.log.clock.now();
    const integration = this.ctx.params.integration ?? "";
    recorder.record({
      kind: "authorization",
      status: "refused",
      startedAtMs: this.startedAtMs,
      integration,
      connection: "",
      ...party,
      title: `${integration ? `${integration}: ` : ""}authorization failed at start: ${failure.code}`,
      messages: [
        {
          atMs: now,
          level: "warn",
          text: failure.message,
          fields: {
            step: "start",
            error: failure.code,
            status,
            route: this.route,
            ...(this.authMode ? { authMode: this.authMode } : {}),
          },
        },
      ],
    });
  }

  /** Whether this request's dead token was refused with `code` lately (and, if not, that it now was). */
  private refusedLately(code: string): boolean {
    const dead = this.log.deadTokens;
    const token = this.sessionToken();
    if (!dead || !token || !NO_SESSION.has(code)) return false;
    const key = `${code} ${token}`;
    const now = this.log.clock.now();
    if (dead.get(key, now)) return true;
    dead.set(key, true, now + DEAD_TOKEN_QUIET_MS);
    return false;
  }

  /** The token of the body, else the query's `connect_session_token`, else a session token as the bearer. */
  private sessionToken(): string {
    const token =
      this.token ??
      this.ctx.url.searchParams.get("connect_session_token") ??
      connectSessionBearer(this.ctx.headers.authorization) ??
      "";
    return token.length <= MAX_TOKEN_LENGTH ? token : "";
  }
}
