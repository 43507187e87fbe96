import { createHash } from "node:crypto";
import type { ListOperationsRequest } from "@junction/contracts/logs/v1/logs_service_pb";
import { type Encryptor, invalidArgument } from "@junction/platform";
import {
  isOperationKind,
  OPERATION_KINDS,
  OPERATION_STATUSES,
  type OperationStatus,
} from "@junction/platform/operations/operation";
import type { OperationFilter, OperationPosition } from "./store/operation-store.ts";

/** Longest search, in characters: words enough for any question, and a bounded FTS query. */
export const MAX_SEARCH_LENGTH = 256;
const CURSOR_CONTEXT = "logs:operations-cursor";

export interface CheckedListRequest {
  filter: OperationFilter;
  limit: number;
  after: OperationPosition | undefined;
  /** Names the filter, so that a page's cursor is refused with another filter. */
  filterKey: string;
}

/** Checks a ListOperations request against the log's rules; a bad one is an invalid argument with its own code. */
export function checkListRequest(
  req: ListOperationsRequest,
  deps: { retentionMs: number; nowMs: number; encryptor: Encryptor },
): CheckedListRequest {
  if (req.kind && !isOperationKind(req.kind)) {
    throw invalidArgument("unknown_kind", `kind must be one of ${OPERATION_KINDS.join(", ")}`, [
      { path: "kind", location: "query", message: `unknown kind ${JSON.stringify(req.kind.slice(0, 64))}` },
    ]);
  }
  if (req.status && !(OPERATION_STATUSES as readonly string[]).includes(req.status)) {
    throw invalidArgument("unknown_status", `status must be one of ${OPERATION_STATUSES.join(", ")}`, [
      { path: "status", location: "query", message: "unknown status" },
    ]);
  }
  if (req.q.length > MAX_SEARCH_LENGTH) {
    throw invalidArgument("search_too_long", `a search is at most ${MAX_SEARCH_LENGTH} characters`, [
      { path: "q", location: "query", message: `${req.q.length} characters` },
    ]);
  }
  const fromMs = Number(req.fromMs);
  const toMs = Number(req.toMs);
  checkPeriod(fromMs, toMs, deps.retentionMs, deps.nowMs);
  const filter: OperationFilter = {
    ...(req.kind ? { kind: req.kind as OperationFilter["kind"] } : {}),
    ...(req.status ? { status: req.status as OperationStatus } : {}),
    ...(req.integration ? { integration: req.integration } : {}),
    ...(req.connection ? { connection: req.connection } : {}),
    ...(req.endUser ? { endUser: req.endUser } : {}),
    ...(req.tag ? { tag: req.tag } : {}),
    ...(fromMs > 0 ? { fromMs } : {}),
    ...(toMs > 0 ? { toMs } : {}),
    ...(req.q.trim() ? { q: req.q.trim() } : {}),
  };
  const filterKey = createHash("sha256").update(JSON.stringify(filter)).digest("base64url").slice(0, 22);
  const after = req.cursor ? readCursor(req.cursor, filterKey, deps.encryptor) : undefined;
  return { filter, limit: Math.min(Math.max(req.limit || 50, 1), 500), after, filterKey };
}

function checkPeriod(fromMs: number, toMs: number, retentionMs: number, nowMs: number): void {
  if (fromMs > 0 && toMs > 0 && fromMs >= toMs) {
    throw invalidArgument("invalid_period", "from must be before to", [
      { path: "from", location: "query", message: "after to" },
    ]);
  }
  if (fromMs > 0 && (toMs || nowMs) - fromMs > retentionMs) {
    const hours = Math.round(retentionMs / 3_600_000);
    throw invalidArgument("period_too_long", `the log keeps ${hours} hours; ask for a period inside it`, [
      { path: "from", location: "query", message: `more than ${hours} hours before ${toMs ? "to" : "now"}` },
    ]);
  }
}

/** The cursor after `last`: its position and filter, with a keyed digest so that it cannot be forged. */
export function writeCursor(last: OperationPosition, filterKey: string, encryptor: Encryptor): string {
  const payload = JSON.stringify([last.startedAtMs, last.id, filterKey]);
  const mac = encryptor.digest(payload, CURSOR_CONTEXT);
  return Buffer.from(JSON.stringify([payload, mac])).toString("base64url");
}

function readCursor(cursor: string, filterKey: string, encryptor: Encryptor): OperationPosition {
  const forged = () =>
    invalidArgument("invalid_cursor", "cursor is not one this log wrote; start again without it", [
      { path: "cursor", location: "query", message: "not a cursor of GET /logs/operations" },
    ]);
  let parts: unknown;
  try {
    parts = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    throw forged();
  }
  if (!Array.isArray(parts) || typeof parts[0] !== "string" || typeof parts[1] !== "string") throw forged();
  const [payload, mac] = parts as [string, string];
  if (!encryptor.digestMatches(mac, payload, CURSOR_CONTEXT)) throw forged();
  const [startedAtMs, id, key] = JSON.parse(payload) as [number, string, string];
  if (key !== filterKey) {
    throw invalidArgument("cursor_filter_mismatch", "cursor belongs to other filters; start again without it", [
      { path: "cursor", location: "query", message: "written for other filters" },
    ]);
  }
  return { startedAtMs, id };
}
