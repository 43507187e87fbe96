/**
 * The SQL a calendar notification costs in the embedded default, counted exactly: receipt, the
 * durable write, the worker (claim, match), the forward message, its delivery and the job's ack.
 * STATEMENTS_PRINT=1 prints the table per notification (docs/benchmarks.md quotes it). The counter
 * (test/support/statement-counter.ts) wraps this process's bun:sqlite statements.
 */
import { afterAll, expect, test } from "bun:test";
import { startTestJunction } from "../support/embedded-junction.ts";
import { countStatements } from "../support/statement-counter.ts";
import { waitFor } from "../support/wait-for.ts";
import {
  addConnection,
  eventsUri,
  googHeaders,
  notify,
  setupCalendar,
  startCustomerReceiver,
} from "./notifications-kit.ts";

// Installed before Junction opens its stores, so that every statement they prepare is counted.
const statements = countStatements();
const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const N = 20;
const URI = eventsUri("kim@example.com");
const count = (prefix: string) =>
  [...statements.counts].filter(([sql]) => sql.startsWith(prefix)).reduce((sum, [, n]) => sum + n, 0);

/**
 * Counts from now the statements of `n` notifications on new channels, sent one at a time: until each
 * one's delivery round is recorded and its job acked (its row deleted).
 */
async function send(j: Awaited<ReturnType<typeof startTestJunction>>, n: number) {
  statements.reset();
  for (let i = 0; i < n; i++) expect((await notify(j, googHeaders(URI))).status).toBe(200);
  await waitFor(`${n} delivery rounds recorded`, () => count("UPDATE webhook_messages SET status") >= n);
  await waitFor(`${n} jobs acked`, () => count("DELETE FROM bus_jobs") >= n);
}

test("a calendar notification runs at most 8 SQL statements, none of them a settings read", async () => {
  const j = await startTestJunction({ logLevel: "warn" });
  cleanups.push(() => j.close());
  const rx = startCustomerReceiver();
  cleanups.push(() => rx.stop());
  await setupCalendar(j, [rx.url]);
  await addConnection(j, "kim", { metadata: { calendarWatchResourceUris: [URI] } });
  // The first notifications fill the caches (the integration, the settings): steady state after.
  await send(j, 3);
  await send(j, N);
  expect(rx.succeeded()).toHaveLength(3 + N);
  const perNotification = [...statements.counts]
    .map(([sql, n]) => ({ sql, n: n / N }))
    .sort((a, b) => b.n - a.n || a.sql.localeCompare(b.sql));
  if (process.env.STATEMENTS_PRINT === "1") {
    for (const { sql, n } of perNotification) console.log(`| ${n.toFixed(2)} | \`${sql.slice(0, 110)}\` |`);
  }
  // The operations log (the receipt's and the delivery's operations, written in batches on their own
  // schedule) is the logs feature, not the path: counted apart.
  const path = perNotification.filter((s) => !s.sql.includes(" INTO operation"));
  expect(path.reduce((sum, s) => sum + s.n, 0)).toBeLessThanOrEqual(8);
  // Its inserts learn whether they wrote from the change count: RETURNING costs a few µs more each.
  expect(path.filter((s) => s.sql.startsWith("INSERT") && s.sql.includes("RETURNING"))).toEqual([]);
  // Read once a second at most, not once per message.
  expect(count("SELECT environment_id, version, endpoints, signing_secret_enc")).toBeLessThan(N / 4);
});
