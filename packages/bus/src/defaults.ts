/** Defaults shared by both buses, so that they behave alike. */

/** A job neither acked nor nakked within this is delivered again (JetStream's default). */
export const DEFAULT_ACK_WAIT_MS = 30_000;

/** How long a `msgId` is remembered for de-duplication (JetStream's default duplicate window). */
export const DEFAULT_DEDUP_WINDOW_MS = 2 * 60_000;
