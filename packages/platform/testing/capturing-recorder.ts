import { type Clock, ManualClock } from "../src/clock.ts";
import type { Operation } from "../src/operations/operation.ts";
import { OperationRecorder, type OperationRecorderOptions } from "../src/operations/operation-recorder.ts";

/** A minute's start: the clock's minutes are aligned on Unix time. */
export const MINUTE_START = 1_700_000_040_000;

/**
 * A recorder that hands what it records to `got` at once (no flush delay), on `clock` (unless given, a
 * manual clock at a minute's start): what a test of a place that records operations reads back.
 */
export function capturingRecorder<C extends Clock = ManualClock>(
  options: Partial<Omit<OperationRecorderOptions, "clock">> & { clock?: C } = {},
): { clock: C; rec: OperationRecorder; got: Operation[] } {
  const clock = (options.clock ?? new ManualClock(MINUTE_START)) as C;
  const rec = new OperationRecorder({ flushDelayMs: 0, ...options, clock });
  const got: Operation[] = [];
  rec.attach(async (batch) => {
    got.push(...batch);
  });
  return { clock, rec, got };
}
