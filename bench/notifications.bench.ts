/**
 * Calendar notifications: receipt to the customer's receiver, against a bare Bun loop posting the
 * same signed messages to the same receiver in the same run; and the time to match a notification
 * with 10³, 10⁵ and 10⁶ connections in the store.
 *
 *   bun run bench:notifications          (or: bun bench/notifications.bench.ts)
 *
 * The contenders and the receiver are in bench/support/notification-contenders.ts, the match times in
 * bench/support/notification-match-times.ts.
 *
 * Throughput: `junction start` (the embedded default: SQLite WAL, durable queues) in a child process
 * at the default log level; a driver posts N notifications (distinct channels, each matching one
 * connection by rule 1) to the webhook URL with BENCH_NOTIFY_CONCURRENCY in flight, and the time runs
 * until the local receiver has all N forwarded messages. The bare loop signs (Standard Webhooks +
 * X-Nango-Hmac-Sha256, with the same two secrets) and posts the same bodies to the same receiver.
 * Like for like, the bare loop gets as many posts in flight as Junction gets deliveries in flight
 * (BENCH_DELIVERY_CONCURRENCY, passed to Junction as JUNCTION_WEBHOOK_DELIVERY_CONCURRENCY): that
 * ratio is the headline. The bare loop one at a time is shown too. Rounds are interleaved, the
 * order rotating; medians. Also printed: CPU time per notification of the Junction process (from
 * /proc) and of this process (driver + receiver, or the bare loop), which a loaded machine moves
 * less than the rates.
 *
 * Matching: `matchNotification` (what ConnectionService.MatchNotifications runs for each
 * notification) on SQLite stores seeded with insertConnectionsBulk, one per size, for a rule-1 hit
 * (one search), a rule-2 hit in the third tier and a miss (two searches each: the watch URI, then rule 2's three tiers at once). The
 * sizes are measured in interleaved rounds (one batch of each case at each size per round, after an
 * untimed round), so that they see the same machine load; medians of 5 rounds.
 *
 * Providers: in the same rounds, the same Junction takes each provider's notifications
 * (bench/support/notification-providers.ts): Gmail's Pub/Sub pushes matched by email, without and with
 * the OIDC token verified (gmail, gmail-oidc), and Outlook calendar's Graph batches matched by their
 * subscription through the channel registry, 1 and 10 items per request (outlook, outlook-batch10); a
 * table gives each one's notifications per second and CPU per notification against Google Calendar's.
 * gmail-oidc's integration is created with provider_settings naming the bench's audience and key set;
 * Outlook's subscriptions are created through Junction's proxy and recorded by its channel tap (the
 * bench fails unless GET /channels lists them all and the registry holds their clientState).
 * Every run checks that the receiver got one message naming a connection per notification, for the
 * run's integration, and none without.
 *
 * Also measured like Junction, as a reference: the floor, the smallest durable forwarder on Bun
 * (bench/support/minimal-forwarder.ts: record in SQLite, answer, sign, post; nothing else), which
 * shows what share of the bare loop's rate any durable forwarder reaches on this machine.
 *
 * Environment: BENCH_NOTIFICATIONS (3000), BENCH_PROVIDERS (calendar,gmail,gmail-oidc,outlook,outlook-batch10: all;
 * calendar always runs), BENCH_SKIP_FLOOR=1, BENCH_ROUNDS (3), BENCH_NOTIFY_CONCURRENCY (16),
 * BENCH_DELIVERY_CONCURRENCY (= BENCH_NOTIFY_CONCURRENCY), BENCH_MATCH_SIZES (1000,100000,1000000),
 * BENCH_MATCH_QUERIES (20000), BENCH_MATCH_NANGO=1 (match as for an integration with imported connections,
 * which also looks Nango's emailAddressHash formula up), BENCH_SKIP_MATCH=1, BENCH_SKIP_THROUGHPUT=1, BENCH_PROFILE=<dir> (CPU
 * profile of Junction, markdown), BENCH_SQL_PROFILE=1 (time of each SQLite statement Junction runs, per
 * notification: bench/support/sql-profile.ts), BENCH_COMPARE_ROOT=<checkout> (also measures the Junction of
 * another checkout, e.g. before a change, in the same rounds), BENCH_COMPARE_ENV=K=V,... (environment for that other
 * Junction only, e.g. a setting's old value: BENCH_COMPARE_ROOT=. compares two settings of the same code),
 * BENCH_EMBEDDED_ENV=K=V,... (environment for this checkout's Junction: with BENCH_COMPARE_ENV, a pair's roles swapped),
 * JUNCTION_WEBHOOK_* (passed to Junction).
 */
import { rmSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { newId } from "@junction/platform";
import { forwardBody, signatureHeaders } from "@junction/webhook-service";
import {
  CONCURRENCY,
  CONNECTIONS,
  type Contender,
  cpuMsOf,
  DELIVERY,
  log,
  median,
  ownCpuMs,
  pool,
  printSqlProfile,
  ROOT,
  setUp,
  startFloor,
  startReceiver,
  stopJunction,
  uriOf,
} from "./support/notification-contenders.ts";
import { matchTimes } from "./support/notification-match-times.ts";
import {
  type ProviderTraffic,
  selectProviders,
  setUpGmail,
  setUpGmailOidc,
  startFakeGraph,
  startPushKeys,
} from "./support/notification-providers.ts";
import { setUpOutlook } from "./support/outlook-setup.ts";
import { envList } from "./support/report.ts";

const env = process.env;
const N = Number(env.BENCH_NOTIFICATIONS ?? 3000);
const ROUNDS = Number(env.BENCH_ROUNDS ?? 3);
const COMPARE_ROOT = env.BENCH_COMPARE_ROOT;
const PROVIDERS = selectProviders(env.BENCH_PROVIDERS);
const COMPARE_ENV = envList(env.BENCH_COMPARE_ENV);
// BENCH_EMBEDDED_ENV=K=V,...: settings for the Junction of this checkout (with BENCH_COMPARE_ENV, a pair's roles swapped).
const EMBEDDED_ENV = envList(env.BENCH_EMBEDDED_ENV);

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");

log(`# Notifications benchmark (Bun ${Bun.version}, ${navigator.hardwareConcurrency} CPUs, load ${load()})`);
if (env.BENCH_SKIP_THROUGHPUT !== "1") await throughput();
if (env.BENCH_SKIP_MATCH !== "1") await matchTimes();

async function throughput(): Promise<void> {
  const receiver = startReceiver();
  const contenders: Contender[] = [];
  // Local upstreams: the push keys' server, the fake Graph.
  const stops: Array<() => void> = [];
  // Notifications each Junction took (for BENCH_SQL_PROFILE's figures per notification).
  const through = new Map<string, number>();
  try {
    contenders.push(await setUp(ROOT, "junction", receiver.url, EMBEDDED_ENV));
    // BENCH_COMPARE_ROOT=<checkout>: another Junction (say, before a change) measured in the same rounds.
    // BENCH_COMPARE_ENV=K=V,...: settings for that Junction only (say, a setting's old value on the same code).
    if (COMPARE_ROOT) contenders.push(await setUp(COMPARE_ROOT, "compared", receiver.url, COMPARE_ENV));
    const main = contenders[0] as Contender;
    const secrets = main.secrets;
    // The floor: the smallest durable forwarder on Bun (bench/support/minimal-forwarder.ts), measured
    // like Junction. BENCH_SKIP_FLOOR=1 leaves it out.
    if (env.BENCH_SKIP_FLOOR !== "1") contenders.push(await startFloor(receiver.url, secrets));
    const headersOf = (round: string, i: number) => ({
      "X-Goog-Channel-ID": `bench-${round}-${i}`,
      "X-Goog-Channel-Expiration": "Tue, 01 Dec 2026 12:00:00 GMT",
      "X-Goog-Message-Number": "1",
      "X-Goog-Resource-ID": `resource-${i % CONNECTIONS}`,
      "X-Goog-Resource-State": "exists",
      "X-Goog-Resource-URI": uriOf(i % CONNECTIONS),
    });
    const calendarOf = (c: Contender): ProviderTraffic => ({
      provider: "calendar",
      integration: "cal",
      webhookUrl: c.webhookUrl,
      perRequest: 1,
      acceptStatus: 200,
      request: (run, i) => ({ headers: headersOf(run, i) }),
    });
    // The other providers' traffic, each an integration of the same Junction.
    const providerRuns: { c: Contender; traffic: ProviderTraffic }[] = [];
    if (PROVIDERS.includes("gmail")) providerRuns.push({ c: main, traffic: await setUpGmail(main.junction) });
    if (PROVIDERS.includes("gmail-oidc")) {
      const keys = await startPushKeys(CONNECTIONS);
      stops.push(keys.stop);
      providerRuns.push({ c: main, traffic: await setUpGmailOidc(main.junction, keys) });
    }
    const batches = [
      ...(PROVIDERS.includes("outlook") ? [{ provider: "outlook" as const, perRequest: 1 }] : []),
      ...(PROVIDERS.includes("outlook-batch10") ? [{ provider: "outlook-batch10" as const, perRequest: 10 }] : []),
    ];
    if (batches.length > 0) {
      const graph = startFakeGraph();
      stops.push(graph.stop);
      for (const traffic of await setUpOutlook(main.junction, graph.url, batches, receiver)) {
        providerRuns.push({ c: main, traffic });
      }
      log(
        `(outlook: ${CONNECTIONS} subscriptions created through the proxy, listed by GET /channels; a wrong clientState dropped)`,
      );
    }
    // The bodies Junction forwards, built the same way, for the bare loop.
    const bodies = Array.from({ length: N }, (_, i) =>
      forwardBody({
        from: "google-calendar",
        providerConfigKey: "cal",
        connectionId: `user${i % CONNECTIONS}`,
        payload: Object.fromEntries(Object.entries(headersOf("bare", i)).map(([k, v]) => [k.toLowerCase(), v])),
      }),
    );

    /**
     * Notifications per second through `c` (N, in requests of `traffic.perRequest`), and Junction's and
     * this process's CPU per notification. Junction's runs must bring the receiver one message naming a
     * connection per notification, for the traffic's integration (the floor's are only counted).
     */
    const viaJunction = async (c: Contender, traffic: ProviderTraffic, round: string) => {
      const requests = Math.ceil(N / traffic.perRequest);
      const notifications = requests * traffic.perRequest;
      const target = receiver.count + notifications;
      const before = receiver.received(traffic.integration);
      const pid = c.junction.proc.pid;
      const cpuBefore = [cpuMsOf(pid), ownCpuMs(), cpuMsOf(pid, pid)] as const;
      const started = performance.now();
      await pool(requests, CONCURRENCY, async (i) => {
        const { headers, body } = traffic.request(`${c.label}-${traffic.provider}-${round}`, i);
        const res = await fetch(traffic.webhookUrl, { method: "POST", headers, body });
        if (res.status !== traffic.acceptStatus) {
          throw new Error(`${traffic.provider} notification answered ${res.status}: ${await res.text()}`);
        }
        await res.arrayBuffer();
      });
      await receiver.until(target);
      const rate = notifications / ((performance.now() - started) / 1000);
      through.set(c.label, (through.get(c.label) ?? 0) + notifications);
      const measured = {
        rate,
        junctionCpuUs: ((cpuMsOf(pid) - cpuBefore[0]) * 1000) / notifications,
        mainThreadCpuUs: ((cpuMsOf(pid, pid) - cpuBefore[2]) * 1000) / notifications,
        benchCpuUs: ((ownCpuMs() - cpuBefore[1]) * 1000) / notifications,
      };
      const after = receiver.received(traffic.integration);
      const matched = after.matched - before.matched;
      const unmatched = after.unmatched - before.unmatched;
      if (c.label !== "floor" && (matched < notifications || unmatched > 0)) {
        throw new Error(
          `${c.label} ${traffic.provider}: ${notifications} notifications, the receiver got ${matched} messages for ` +
            `${traffic.integration} naming a connection and ${unmatched} naming none`,
        );
      }
      if (c.label !== "floor" && matched > notifications) {
        log(`(${c.label} ${traffic.provider}: ${matched - notifications} messages more than notifications)`);
      }
      return measured;
    };
    /** The bare loop: signs each body as Junction does and posts it, `concurrency` at a time. */
    const bare = async (concurrency: number) => {
      const target = receiver.count + N;
      const cpuBefore = ownCpuMs();
      const started = performance.now();
      await pool(N, concurrency, async (i) => {
        const id = newId("msg");
        const body = bodies[i] as Uint8Array;
        const headers = {
          ...signatureHeaders(secrets, id, Math.floor(Date.now() / 1000), body),
          "content-type": "application/json",
        };
        const res = await fetch(receiver.url, { method: "POST", headers, body: body as Uint8Array<ArrayBuffer> });
        if (res.status !== 200) throw new Error(`receiver answered ${res.status}`);
        await res.arrayBuffer();
      });
      await receiver.until(target);
      return { rate: N / ((performance.now() - started) / 1000), benchCpuUs: ((ownCpuMs() - cpuBefore) * 1000) / N };
    };

    log(
      `\n## Throughput: ${N} notifications per run, ${ROUNDS} interleaved rounds; driver ${CONCURRENCY} in flight, ` +
        `Junction ${DELIVERY} deliveries in flight, bare loop 1 and ${DELIVERY} in flight; providers ${PROVIDERS.join(", ")}`,
    );
    for (const c of contenders) await viaJunction(c, calendarOf(c), "warmup");
    for (const { c, traffic } of providerRuns) await viaJunction(c, traffic, "warmup");
    await bare(1);
    await bare(DELIVERY);
    const rates = new Map<string, number[]>();
    const cpu = new Map<string, number[]>();
    const note = (key: string, rate: number, cpuUs: number) => {
      rates.set(key, [...(rates.get(key) ?? []), rate]);
      cpu.set(key, [...(cpu.get(key) ?? []), cpuUs]);
    };
    const bareMatched = `bare Bun loop, ${DELIVERY} in flight`;
    const bareOne = "bare Bun loop, one at a time";
    const runs: Array<(r: number) => Promise<string>> = [
      ...contenders.map((c) => async (r: number) => {
        const m = await viaJunction(c, calendarOf(c), `r${r}`);
        note(c.label, m.rate, m.junctionCpuUs);
        return `${c.label} ${m.rate.toFixed(0)}/s (CPU/notification: its process ${m.junctionCpuUs.toFixed(0)} µs, its main thread ${m.mainThreadCpuUs.toFixed(0)} µs, driver + receiver ${m.benchCpuUs.toFixed(0)} µs)`;
      }),
      ...providerRuns.map(({ c, traffic }) => async (r: number) => {
        const m = await viaJunction(c, traffic, `r${r}`);
        note(traffic.provider, m.rate, m.junctionCpuUs);
        return `${traffic.provider} ${m.rate.toFixed(0)}/s (${m.junctionCpuUs.toFixed(0)} µs, driver ${m.benchCpuUs.toFixed(0)} µs)`;
      }),
      async () => {
        const m = await bare(DELIVERY);
        note(bareMatched, m.rate, m.benchCpuUs);
        return `bare x${DELIVERY} ${m.rate.toFixed(0)}/s (${m.benchCpuUs.toFixed(0)} µs)`;
      },
      // One at a time is the like-for-like run already when Junction delivers one at a time.
      ...(DELIVERY === 1
        ? []
        : [
            async () => {
              const m = await bare(1);
              note(bareOne, m.rate, m.benchCpuUs);
              return `bare x1 ${m.rate.toFixed(0)}/s (${m.benchCpuUs.toFixed(0)} µs)`;
            },
          ]),
    ];
    for (let r = 0; r < ROUNDS; r++) {
      const parts: string[] = [];
      // The order rotates, so that no contender always runs first (or right after a busy one).
      for (let k = 0; k < runs.length; k++)
        parts.push(await (runs[(k + r) % runs.length] as (r: number) => Promise<string>)(r));
      log(`round ${r + 1}: ${parts.join(", ")} (load ${load()})`);
    }
    const med = (key: string) => median(rates.get(key) ?? [0]);
    const medCpu = (key: string) => median(cpu.get(key) ?? [0]);
    const b = med(bareMatched);
    const b1 = med(DELIVERY === 1 ? bareMatched : bareOne);
    log("");
    log(
      `| | notifications/s (median) | CPU µs per notification | ÷ bare, ${DELIVERY} in flight | ÷ bare, one at a time |`,
    );
    log("|---|---:|---:|---:|---:|");
    for (const c of contenders) {
      const j = med(c.label);
      const name =
        c.label === "junction"
          ? "Junction, receipt → receiver (durable, embedded)"
          : c.label === "floor"
            ? "floor: minimal durable forwarder on Bun (reference, not Junction)"
            : `Junction at ${COMPARE_ROOT}`;
      log(
        `| ${name} | ${j.toFixed(0)} | ${medCpu(c.label).toFixed(0)} (its process) | **${(j / b).toFixed(2)}×** | ${(j / b1).toFixed(2)}× |`,
      );
    }
    log(`| ${bareMatched} | ${b.toFixed(0)} | ${medCpu(bareMatched).toFixed(0)} (bench) | 1× | |`);
    if (DELIVERY !== 1) {
      log(`| ${bareOne} | ${b1.toFixed(0)} | ${medCpu(bareOne).toFixed(0)} (bench) | | 1× |`);
    }
    if (providerRuns.length > 0) {
      const cal = med(main.label);
      const calCpu = medCpu(main.label);
      log(
        "\n### Per provider (Junction, receipt → receiver; medians; ratios to Google Calendar's in the same rounds)\n",
      );
      log(
        "| provider | notifications per request | notifications/s | CPU µs per notification | rate ÷ calendar | CPU ÷ calendar |",
      );
      log("|---|---:|---:|---:|---:|---:|");
      log(`| calendar | 1 | ${cal.toFixed(0)} | ${calCpu.toFixed(0)} | 1× | 1× |`);
      for (const { traffic } of providerRuns) {
        const rate = med(traffic.provider);
        const cpuUs = medCpu(traffic.provider);
        log(
          `| ${traffic.provider} | ${traffic.perRequest} | ${rate.toFixed(0)} | ${cpuUs.toFixed(0)} | ${(rate / cal).toFixed(2)}× | ${(cpuUs / calCpu).toFixed(2)}× |`,
        );
      }
    }
  } finally {
    for (const c of contenders) await stopJunction(c.junction);
    // Only the first Junction's SQLite profile is printed; the others' files go.
    for (const c of contenders.slice(1)) {
      if (c.junction.sqlProfile) rmSync(join(c.junction.sqlProfile, ".."), { recursive: true, force: true });
    }
    for (const stop of stops) stop();
    receiver.stop();
  }
  const junction = contenders.find((c) => c.label === "junction");
  // Every notification of its runs (warm-up included, every provider it took) went through it.
  if (junction?.junction.sqlProfile) printSqlProfile(junction.junction.sqlProfile, through.get("junction") ?? 0);
}
