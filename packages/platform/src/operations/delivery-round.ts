import type { Operation, OperationMessage, OperationStatus } from "./operation.ts";

/** One attempt of a delivery round, as the log tells it. */
export interface RoundAttempt {
  at: number;
  number: number;
  endpointId: string;
  /** The endpoint's URL (its query is not shown). */
  url: string;
  /** 0 when nothing answered. */
  statusCode: number;
  latencyMs: number;
  /** Why it failed; null when it succeeded. */
  error: string | null;
}

/**
 * The facts of one webhook delivery round, as the webhook service hands them to the recorder. The operation
 * (its title and messages) is rendered from them by `deliveryRoundOperation`: on the recording thread when the
 * recorder hands objects on, in the log's writer thread when it hands text on (the facts then cross as a short
 * JSON array, `encodeDeliveryRound`): a notification's main thread builds no title, message or field object.
 */
export interface DeliveryRoundFacts {
  startedAtMs: number;
  environmentId: string;
  integration: string;
  connection: string;
  /** The message's type (`forward`, `auth`, …), its id, and the notification it came from ("" for none). */
  messageType: string;
  messageId: string;
  notificationId: string;
  /** How the round ended: the message's delivery status after it (`succeeded`, `pending`, `failed`, …). */
  outcome: string;
  nextAttemptAt: number | null;
  lastError: string | null;
  /** When the outcome was written. */
  updatedAt: number;
  attempts: RoundAttempt[];
}

/** An endpoint's URL as the log shows it: without its query, which may carry a token. */
function shownUrl(url: string): string {
  const at = url.indexOf("?");
  return at < 0 ? url : `${url.slice(0, at)}?…`;
}

function statusOf(outcome: string): OperationStatus {
  return outcome === "succeeded" ? "success" : outcome === "pending" ? "running" : "failed";
}

/**
 * The round as the operations log keeps it: the message and the notification it came from in the title (searched
 * by `q`: a successful receipt is a per-minute total, so this is the row that answers what happened to one
 * notification), a message per attempt (the endpoint, its status or error, the latency), then the next attempt or
 * why none was made.
 */
export function deliveryRoundOperation(id: string, durationMs: number, f: DeliveryRoundFacts): Operation {
  const messages: OperationMessage[] = [];
  for (const a of f.attempts) {
    messages.push({
      atMs: a.at,
      level: a.error === null ? "info" : "warn",
      text: `attempt ${a.number} to ${shownUrl(a.url)}: ${a.error ?? `answered ${a.statusCode}`}`,
      fields: { messageId: f.messageId, endpointId: a.endpointId, statusCode: a.statusCode, latencyMs: a.latencyMs },
    });
  }
  if (f.nextAttemptAt !== null) {
    messages.push({
      atMs: f.updatedAt,
      level: "info",
      text: `next attempt at ${new Date(f.nextAttemptAt).toISOString()}`,
    });
  }
  if (f.lastError && f.attempts.length === 0) messages.push({ atMs: f.updatedAt, level: "warn", text: f.lastError });
  const from = f.notificationId ? ` of ${f.notificationId}` : "";
  return {
    id,
    kind: "webhook_delivery",
    status: statusOf(f.outcome),
    startedAtMs: f.startedAtMs,
    durationMs,
    environmentId: f.environmentId,
    integration: f.integration,
    connection: f.connection,
    endUser: "",
    tags: [],
    title: `${f.messageType} message ${f.messageId}${from}: ${f.outcome}`,
    messages,
  };
}

/** The first element of a delivery round's encoded array (an operation's own JSON is an object, never an array). */
const ROUND = "webhook_delivery";
/** Values per attempt in the encoded array. */
const PER_ATTEMPT = 7;

/** The round as one short JSON array: its id, duration and facts, flat (decoded by `operationFromJson`). */
export function encodeDeliveryRound(id: string, durationMs: number, f: DeliveryRoundFacts): string {
  const flat: unknown[] = [
    ROUND,
    id,
    durationMs,
    f.startedAtMs,
    f.environmentId,
    f.integration,
    f.connection,
    f.messageType,
    f.messageId,
    f.notificationId,
    f.outcome,
    f.nextAttemptAt,
    f.lastError,
    f.updatedAt,
  ];
  for (const a of f.attempts) flat.push(a.at, a.number, a.endpointId, a.url, a.statusCode, a.latencyMs, a.error);
  return JSON.stringify(flat);
}

const HEAD = 14;

function decodeDeliveryRound(a: unknown[]): Operation {
  if (a.length < HEAD || (a.length - HEAD) % PER_ATTEMPT !== 0) throw new Error("a delivery round's encoding is cut");
  const attempts: RoundAttempt[] = [];
  for (let i = HEAD; i < a.length; i += PER_ATTEMPT) {
    attempts.push({
      at: a[i] as number,
      number: a[i + 1] as number,
      endpointId: a[i + 2] as string,
      url: a[i + 3] as string,
      statusCode: a[i + 4] as number,
      latencyMs: a[i + 5] as number,
      error: a[i + 6] as string | null,
    });
  }
  return deliveryRoundOperation(a[1] as string, a[2] as number, {
    startedAtMs: a[3] as number,
    environmentId: a[4] as string,
    integration: a[5] as string,
    connection: a[6] as string,
    messageType: a[7] as string,
    messageId: a[8] as string,
    notificationId: a[9] as string,
    outcome: a[10] as string,
    nextAttemptAt: a[11] as number | null,
    lastError: a[12] as string | null,
    updatedAt: a[13] as number,
    attempts,
  });
}

/**
 * One item of a recorder's encoded batch as an operation: an operation's own JSON as it is, a delivery round's
 * array rendered. Anything else is refused (the batch is not the recorder's).
 */
export function operationFromJson(item: unknown): Operation {
  if (Array.isArray(item)) {
    if (item[0] === ROUND) return decodeDeliveryRound(item);
    throw new Error("an encoded operation of an unknown shape");
  }
  if (item === null || typeof item !== "object") throw new Error("an encoded operation of an unknown shape");
  return item as Operation;
}

/** A recorder's encoded batch (one JSON array) as operations. */
export function operationsFromJson(json: string): Operation[] {
  const items = JSON.parse(json) as unknown;
  if (!Array.isArray(items)) throw new Error("an encoded batch is a JSON array");
  return items.map(operationFromJson);
}
