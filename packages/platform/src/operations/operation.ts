/**
 * One thing that happened, as the operations log keeps it: what kind, how it ended, when and for how
 * long, for which integration, connection and end user, and its messages (script logs, delivery
 * attempts, the upstream's status). Never a secret; a body only when the operator switched bodies on
 * for the integration.
 */
export const OPERATION_KINDS = [
  "authorization",
  "token_refresh",
  "proxy_call",
  "notification_received",
  "webhook_delivery",
  "sync_run",
  "action_run",
  "lifecycle_hook",
  "channel_call",
] as const;
export type OperationKind = (typeof OPERATION_KINDS)[number];

export const OPERATION_STATUSES = ["success", "failed", "refused", "running"] as const;
export type OperationStatus = (typeof OPERATION_STATUSES)[number];

export type MessageLevel = "debug" | "info" | "warn" | "error";

export interface OperationMessage {
  atMs: number;
  level: MessageLevel;
  text: string;
  /** Small structured facts (an upstream status, an attempt number); redacted when recorded. */
  fields?: Record<string, unknown>;
}

/**
 * Many calls kept as one operation: the successful proxy calls of one (environment, integration,
 * connection, method, status) within a minute. The operation's start and duration are the period.
 */
export interface CallTotals {
  count: number;
  latencyMinMs: number;
  latencyMaxMs: number;
  latencySumMs: number;
}

export interface Operation {
  /** `op_…`, time-ordered. */
  id: string;
  kind: OperationKind;
  status: OperationStatus;
  startedAtMs: number;
  durationMs: number;
  environmentId: string;
  integration: string;
  connection: string;
  endUser: string;
  tags: string[];
  /** A one-line summary (`GET /calendars → 200`). */
  title: string;
  messages: OperationMessage[];
  /** Present when the operation stands for many calls (their count and latency); absent for one. */
  totals?: CallTotals;
}

/** What a caller hands the recorder: the id and the empty fields are filled in. */
export type OperationInput = Partial<Omit<Operation, "kind" | "status" | "startedAtMs">> &
  Pick<Operation, "kind" | "status" | "startedAtMs">;

export function isOperationKind(value: string): value is OperationKind {
  return (OPERATION_KINDS as readonly string[]).includes(value);
}
