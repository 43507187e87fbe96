import type { TotalsKind } from "./minute-totals.ts";

/** Successful proxy calls (answers under 400) per connection, method and status: `GET ×1000 → 200`. */
export const PROXY_CALL_TOTALS: TotalsKind = {
  kind: "proxy_call",
  title: (_integration, method, status, count) => `${method} ×${count} → ${status}`,
  overflowTitle: (_integration, count, maxKeys) => `* ×${count} → under 400 (past ${maxKeys} totals this minute)`,
  overflowConnection: "*",
};

/**
 * Notifications received and accepted per outcome (`recorded`, `duplicate`, `handshake`):
 * `notification for cal: recorded ×1000`. A receipt has no connection yet (matching comes after it).
 */
export const NOTIFICATION_RECEIPT_TOTALS: TotalsKind = {
  kind: "notification_received",
  title: (integration, outcome, _code, count) => `notification for ${integration}: ${outcome} ×${count}`,
  overflowTitle: (integration, count, maxKeys) =>
    `notification for ${integration}: * ×${count} (past ${maxKeys} totals this minute)`,
  overflowConnection: "",
};
