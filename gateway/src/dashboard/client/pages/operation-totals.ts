import { duration, h, when } from "../dom.ts";

/**
 * What the log answers of an operation that stands for many (a minute's successful proxy calls, or its
 * notifications received).
 */
export interface OperationTotals {
  kind?: string;
  count: number;
  latency_ms: { min: number; max: number; mean: number } | null;
  period: { start: string | null; end: string | null } | null;
}

const ms = (n: number) => (n < 10 ? n.toFixed(1).replace(/\.0$/, "") : String(Math.round(n)));

/** "×1,000 calls, 2–45 ms (mean 7 ms)": a total's count and latency, in the place of one call's duration. */
export function callsSummary(o: OperationTotals): string {
  const noun = o.kind === "notification_received" ? "notification" : "call";
  const calls = `×${o.count.toLocaleString("en")} ${noun}${o.count === 1 ? "" : "s"}`;
  if (!o.latency_ms) return calls;
  const { min, max, mean } = o.latency_ms;
  return `${calls}, ${ms(min)}–${ms(max)} ms (mean ${ms(mean)} ms)`;
}

/** The "Took" cell of a row: one call's duration, or a total's count and latency. */
export function tookCell(o: OperationTotals & { duration_ms: number }): Node | string {
  return o.latency_ms ? h("span", { class: "call-totals" }, callsSummary(o)) : duration(o.duration_ms);
}

/** The detail's fields for a total: its calls and the period they fell in; one call's duration otherwise. */
export function tookFields(o: OperationTotals & { duration_ms: number }): [string, Node | string][] {
  if (!o.latency_ms || !o.period) return [["Took", duration(o.duration_ms)]];
  return [
    [o.kind === "notification_received" ? "Notifications" : "Calls", callsSummary(o)],
    ["Period", `${when(o.period.start)} – ${when(o.period.end)}`],
  ];
}
