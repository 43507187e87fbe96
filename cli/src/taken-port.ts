/**
 * Throws, as Bun.serve would, when `port` cannot be listened on: checked before a start does anything that
 * stays (a generated secret key), so that a start that fails leaves nothing behind.
 */
export function refuseTakenPort(port: number, hostname: string | undefined): void {
  if (port === 0) return;
  let probe: { stop(closeActive?: boolean): void } | undefined;
  try {
    probe = Bun.listen({ hostname: hostname ?? "0.0.0.0", port, socket: { data() {} } });
  } catch {
    throw new Error(`Failed to start server. Is port ${port} in use?`);
  } finally {
    probe?.stop(true);
  }
}

/** Whether `port` can be listened on now. */
export function portIsFree(port: number, hostname: string | undefined): boolean {
  try {
    refuseTakenPort(port, hostname);
    return true;
  } catch {
    return false;
  }
}
