/**
 * The first due time after `now` on the grid `due + k·frequency`. Due times missed while nothing ran
 * (the service was down) are not made up one by one: they collapse into the run being started.
 */
export function nextDueAfter(due: number, frequencyMs: number, now: number): number {
  const next = due + frequencyMs;
  if (next > now) return next;
  return due + (Math.floor((now - due) / frequencyMs) + 1) * frequencyMs;
}
