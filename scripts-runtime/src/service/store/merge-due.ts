import type { ScheduleEntry } from "./records.ts";

/** Rows due by their schedule or their follow-up, once each, earliest first. */
export function mergeDue(
  due: ScheduleEntry[],
  followUps: ScheduleEntry[],
  now: number,
  limit: number,
): ScheduleEntry[] {
  const seen = new Set<string>();
  const firstAt = (e: ScheduleEntry) =>
    Math.min(...[e.nextDueAt, e.followUpAt].filter((t): t is number => t !== null && t <= now));
  return [...due, ...followUps]
    .filter((e) => {
      const id = JSON.stringify([e.environmentId, e.providerConfigKey, e.scriptName, e.connectionId]);
      if (seen.has(id)) return false;
      seen.add(id);
      return true;
    })
    .sort((a, b) => firstAt(a) - firstAt(b))
    .slice(0, limit);
}
