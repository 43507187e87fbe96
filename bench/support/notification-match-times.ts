/** The match-time part of bench/notifications.bench.ts (see there): matchNotification on seeded SQLite stores. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { emailAddressHash, matchNotification } from "@junction/connection-service";
import type { ConnectionRecord } from "@junction/connection-service/store/records";
import { SqliteConnectionStore } from "@junction/connection-service/store/sqlite-store";
import { newId } from "@junction/platform";
import { emailKeyReader } from "@junction/providers";
import { log, median, uriOf } from "./notification-contenders.ts";

const env = process.env;
const SIZES = (env.BENCH_MATCH_SIZES ?? "1000,100000,1000000").split(",").map(Number);
const QUERIES = Number(env.BENCH_MATCH_QUERIES ?? 20_000);
const MATCH_OPTIONS = { nangoEmailHashes: env.BENCH_MATCH_NANGO === "1", emailKeyOf: emailKeyReader(undefined) };

export async function matchTimes(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "junction-bench-match-"));
  const stores: SqliteConnectionStore[] = [];
  try {
    log(`\n## Match time: ${QUERIES} matches per case, µs per match (median of 5 rounds, sizes interleaved)`);
    log("| connections | seeding | rule 1 hit | rule 2 hit (3rd tier) | no match |");
    log("|---:|---:|---:|---:|---:|");
    // One store per size, all seeded first. Then each round times one batch of every case at every
    // size, so that all sizes see the same machine load: the load of a shared machine drifts over
    // the minute of seeding, and the sizes are compared with each other.
    const sized = [];
    for (const size of SIZES) {
      const store = SqliteConnectionStore.open(join(dir, String(size), "connection.sqlite"));
      stores.push(store);
      const envId = (
        await store.getOrCreateEnvironment(() => ({ id: newId("env"), name: "prod", createdAt: Date.now() }))
      ).id;
      const started = performance.now();
      for (let seeded = 0; seeded < size; seeded += 50_000) {
        const batch: ConnectionRecord[] = [];
        for (let i = seeded; i < Math.min(size, seeded + 50_000); i++) batch.push(connection(envId, i));
        await store.insertConnectionsBulk(batch);
      }
      const seedSeconds = (performance.now() - started) / 1000;
      const pick = () => Math.floor(Math.random() * size);
      const cases: Array<() => string> = [
        () => uriOf(pick()),
        // No query string: rule 1 misses; i % 3 === 2 has only metadata.email, the last tier.
        () => `https://www.googleapis.com/calendar/v3/calendars/user${emailOnly(pick(), size)}%40example.com/events`,
        () => `https://www.googleapis.com/calendar/v3/calendars/nobody${pick()}%40example.com/events`,
      ];
      sized.push({ size, store, envId, seedSeconds, cases, batches: cases.map(() => [] as number[]) });
    }
    // Round -1 is untimed: it warms the JIT up, which would otherwise be timed in the first batches.
    for (let round = -1; round < 5; round++) {
      for (let k = 0; k < sized.length; k++) {
        const s = sized[(k + round + 1) % sized.length] as (typeof sized)[number];
        for (const [c, make] of s.cases.entries()) {
          const uris = Array.from({ length: Math.ceil(QUERIES / 5) }, make);
          const t = performance.now();
          for (const uri of uris) await matchNotification(s.store, s.envId, "cal", uri, MATCH_OPTIONS);
          if (round >= 0) s.batches[c]?.push(((performance.now() - t) * 1000) / uris.length);
        }
      }
    }
    const rows = sized.map((s) => s.batches.map(median));
    for (const [i, s] of sized.entries()) {
      log(
        `| ${s.size.toLocaleString("en")} | ${s.seedSeconds.toFixed(1)} s | ${(rows[i] as number[]).map((us) => `${us.toFixed(1)} µs`).join(" | ")} |`,
      );
    }
    const first = rows[0] as number[];
    const last = rows[rows.length - 1] as number[];
    log(
      `\nlargest ÷ smallest: ${last.map((v, i) => `${(v / (first[i] as number)).toFixed(2)}×`).join(", ")} (target ≤ 1.5×)`,
    );
  } finally {
    for (const store of stores) await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The connection at or near i that has only metadata.email (i % 3 === 2), below `size`. */
function emailOnly(i: number, size: number): number {
  const k = i - (i % 3) + 2;
  return k < size ? k : k - 3;
}

/** Connection i: a watch URI (rule 1), and one of the three primary-calendar fields by i % 3 (rule 2). */
function connection(environmentId: string, i: number): ConnectionRecord {
  const email = `user${i}@example.com`;
  const at = 1_767_225_600_000 + i;
  return {
    id: newId("conn", at),
    environmentId,
    providerConfigKey: "cal",
    connectionId: `user${i}`,
    provider: "google-calendar",
    credentialsEnc: null,
    credentialsExpiresAt: null,
    connectionConfig: i % 3 === 0 ? { emailAddressHash: emailAddressHash(email) } : {},
    metadata: {
      calendarWatchResourceUris: [uriOf(i)],
      ...(i % 3 === 1 ? { emailAddress: email } : {}),
      ...(i % 3 === 2 ? { email } : {}),
    },
    endUser: null,
    errors: [],
    tags: {},
    createdAt: at,
    updatedAt: at,
  };
}
