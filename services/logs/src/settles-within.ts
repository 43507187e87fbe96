import { systemClock } from "@junction/platform/clock";

/**
 * Whether `promise` settled within `ms`. Real time, not the injected clock: it bounds a wait on another thread
 * (the log's writer) at a stop, and a test's manual clock must not hold a stop back.
 */
export function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = systemClock.setTimer(() => resolve(false), ms);
    const settled = () => {
      timer.cancel();
      resolve(true);
    };
    promise.then(settled, settled);
  });
}
