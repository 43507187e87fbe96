/**
 * The webhook URL under a flood: `junction start` (the embedded default, its
 * default intake limits) in a child process on 127.0.0.1; BENCH_FLOOD_SENDERS (32) senders post
 * calendar notifications for made-up channel ids for BENCH_FLOOD_SECONDS (30) while the customer's
 * endpoint answers 503 (down), and a genuine notification (a connection's watched calendar) is sent a
 * third of the way in; refused, it is sent again after its Retry-After, as the upstream would. Then the
 * endpoint comes back and the bench waits (at most BENCH_FLOOD_DRAIN_SECONDS, 300) until every accepted
 * notification is delivered (failed messages are retried every 5 s here, not on the default schedule).
 *
 *   bun run bench:flood          (or: bun bench/flood.bench.ts)
 *
 * Printed: requests answered 200 (accepted) and 503 (refused, by code), other statuses (none
 * expected), Junction's peak resident memory (VmHWM) and its RSS after the flood and after the drain,
 * the data dir's size before, after the flood and after the drain, when the genuine notification was
 * accepted and delivered, and how long the backlog took to drain. BENCH_FLOOD_STRICT=1 makes the
 * integration strict (`strict_channels`): made-up channels are refused with 404 and nothing is stored
 * (the genuine notification, matched by its watched calendar and not by a registered channel, is then
 * refused too and not sent). JUNCTION_WEBHOOK_* pass through to Junction.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { api, CONNECTIONS, log, ROOT, startJunction, stopJunction } from "./support/notification-contenders.ts";

const env = process.env;
const SENDERS = Number(env.BENCH_FLOOD_SENDERS ?? 32);
const SECONDS = Number(env.BENCH_FLOOD_SECONDS ?? 30);
const DRAIN_SECONDS = Number(env.BENCH_FLOOD_DRAIN_SECONDS ?? 300);
const STRICT = env.BENCH_FLOOD_STRICT === "1";
const MB = 1024 * 1024;
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");
const uriOf = (who: string) =>
  `https://www.googleapis.com/calendar/v3/calendars/${encodeURIComponent(who)}/events?alt=json`;

/** The customer's endpoint: down (503) or up (200); counts what it took, and the genuine connection's. */
function startEndpoint() {
  let up = false;
  let delivered = 0;
  let genuineAt = 0;
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const body = await req.text();
      if (!up) return new Response(null, { status: 503 });
      delivered++;
      if (genuineAt === 0 && body.includes('"connectionId":"genuine"')) genuineAt = performance.now();
      return new Response(null, { status: 200 });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}/hooks`,
    setUp: (value: boolean) => {
      up = value;
    },
    get delivered() {
      return delivered;
    },
    get genuineAt() {
      return genuineAt;
    },
    stop: () => server.stop(true),
  };
}

/** Resident memory of a process (kB fields of /proc/<pid>/status): now and its peak. */
function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const field = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) * 1024;
  return { rss: field("VmRSS"), peak: field("VmHWM") };
}

function dirBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    total += entry.isDirectory() ? dirBytes(path) : statSync(path).size;
  }
  return total;
}

const mb = (bytes: number) => `${(bytes / MB).toFixed(1)} MB`;

log(`# Flood benchmark (Bun ${Bun.version}, ${navigator.hardwareConcurrency} CPUs, load ${load()})`);
log(`${SENDERS} senders, ${SECONDS} s, made-up channel ids, endpoint down during the flood${STRICT ? ", strict" : ""}`);
const endpoint = startEndpoint();
// Failed messages are retried every 5 s (the default schedule waits 5 min after the second attempt),
// so that the drain is measured in seconds; JUNCTION_WEBHOOK_RETRY_SCHEDULE overrides it.
// The intake limits are this bench's subject: their defaults unless JUNCTION_WEBHOOK_INTAKE_* say otherwise.
const intake = (name: string, fallback: string) => ({ [name]: env[name] ?? fallback });
const junction = await startJunction(ROOT, "flood", {
  JUNCTION_WEBHOOK_RETRY_SCHEDULE: env.JUNCTION_WEBHOOK_RETRY_SCHEDULE ?? ["0s", ...Array(40).fill("5s")].join(","),
  ...intake("JUNCTION_WEBHOOK_INTAKE_INTEGRATION_RATE", "200"),
  ...intake("JUNCTION_WEBHOOK_INTAKE_INTEGRATION_BURST", "2000"),
  ...intake("JUNCTION_WEBHOOK_INTAKE_CHANNEL_RATE", "10"),
  ...intake("JUNCTION_WEBHOOK_INTAKE_CHANNEL_BURST", "50"),
});
try {
  await api(junction.url, "POST", "/integrations", {
    unique_key: "cal",
    provider: "google-calendar",
    ...(STRICT ? { strict_channels: true } : {}),
  });
  for (let i = 0; i < CONNECTIONS; i++) {
    const who = i === 0 ? "genuine" : `user${i}`;
    await api(junction.url, "POST", "/connections", {
      provider_config_key: "cal",
      connection_id: who,
      credentials: { type: "OAUTH2", access_token: `access-${i}` },
      metadata: { calendarWatchResourceUris: [uriOf(`${who}@example.com`)] },
    });
  }
  await api(junction.url, "PUT", "/webhook-settings", { endpoints: [endpoint.url] });
  const webhook = await api(junction.url, "GET", "/integrations/cal?include=webhook");
  const url = (webhook.data.webhook_url as string).replace("localhost", "127.0.0.1");
  const pid = junction.proc.pid;
  const before = { ...memoryOf(pid), dir: dirBytes(junction.dataDir) };

  const statuses = new Map<string, number>();
  const count = (key: string) => statuses.set(key, (statuses.get(key) ?? 0) + 1);
  const started = performance.now();
  const end = started + SECONDS * 1000;
  let peakSampled = before.rss;
  const sampler = setInterval(() => {
    peakSampled = Math.max(peakSampled, memoryOf(pid).rss);
  }, 250);
  const sender = async (s: number) => {
    for (let i = 0; performance.now() < end; i++) {
      const res = await fetch(url, {
        method: "POST",
        headers: {
          "X-Goog-Channel-ID": `made-up-${s}-${i}`,
          "X-Goog-Message-Number": "1",
          "X-Goog-Resource-ID": `made-up-${s}-${i}`,
          "X-Goog-Resource-State": "exists",
          "X-Goog-Resource-URI": uriOf(`nobody-${s}-${i}@example.com`),
        },
      });
      if (res.status === 503) count(`503 ${((await res.json()) as { error: { code: string } }).error.code}`);
      else {
        count(String(res.status));
        await res.arrayBuffer();
      }
    }
  };
  /** The genuine notification, resent after each Retry-After until accepted (as the upstream retries). */
  const genuine = async () => {
    if (STRICT) return { acceptedAt: 0, tries: 0 };
    await Bun.sleep((SECONDS * 1000) / 3);
    const headers = {
      "X-Goog-Channel-ID": "genuine-channel",
      "X-Goog-Message-Number": "1",
      "X-Goog-Resource-ID": "genuine-resource",
      "X-Goog-Resource-State": "exists",
      "X-Goog-Resource-URI": uriOf("genuine@example.com"),
    };
    for (let tries = 1; ; tries++) {
      const res = await fetch(url, { method: "POST", headers });
      await res.arrayBuffer();
      if (res.status === 200) return { acceptedAt: performance.now(), tries };
      if (res.status !== 503) throw new Error(`the genuine notification answered ${res.status}`);
      await Bun.sleep(Number(res.headers.get("retry-after") ?? "1") * 1000);
    }
  };
  const genuineRun = genuine();
  log("flooding...");
  await Promise.all(Array.from({ length: SENDERS }, (_, s) => sender(s)));
  clearInterval(sampler);
  const floodEnd = performance.now();
  const afterFlood = { ...memoryOf(pid), dir: dirBytes(junction.dataDir) };
  const accepted = statuses.get("200") ?? 0;

  endpoint.setUp(true);
  log("the endpoint is up; draining...");
  const { acceptedAt, tries } = await genuineRun;
  const expected = accepted + (STRICT ? 0 : 1);
  const drainDeadline = performance.now() + DRAIN_SECONDS * 1000;
  while (endpoint.delivered < expected && performance.now() < drainDeadline) await Bun.sleep(100);
  const drained = performance.now();
  const afterDrain = { ...memoryOf(pid), dir: dirBytes(junction.dataDir) };

  const refused = [...statuses].filter(([k]) => k.startsWith("503")).reduce((n, [, v]) => n + v, 0);
  const total = [...statuses.values()].reduce((n, v) => n + v, 0);
  log(`requests: ${total} in ${((floodEnd - started) / 1000).toFixed(1)} s (${Math.round(total / SECONDS)}/s)`);
  log(`accepted (200): ${accepted}; refused (503): ${refused}`);
  for (const [k, v] of [...statuses].sort()) log(`  ${k}: ${v}`);
  log(`Junction RSS: before ${mb(before.rss)}, peak ${mb(afterFlood.peak)} (sampled ${mb(peakSampled)}),`);
  log(`  after the flood ${mb(afterFlood.rss)}, after the drain ${mb(afterDrain.rss)}`);
  log(
    `data dir: before ${mb(before.dir)}, after the flood ${mb(afterFlood.dir)}, after the drain ${mb(afterDrain.dir)}`,
  );
  if (!STRICT) {
    log(
      `genuine: accepted ${((acceptedAt - started) / 1000).toFixed(1)} s into the run after ${tries} tries; ` +
        `delivered ${endpoint.genuineAt > 0 ? `${((endpoint.genuineAt - started) / 1000).toFixed(1)} s` : "never"}`,
    );
  }
  log(
    `backlog: ${endpoint.delivered} of ${expected} delivered ${((drained - floodEnd) / 1000).toFixed(1)} s after the flood` +
      `${endpoint.delivered < expected ? " (NOT drained)" : ""}; load ${load()}`,
  );
  if (endpoint.delivered < expected || (!STRICT && endpoint.genuineAt === 0)) process.exitCode = 1;
} finally {
  await stopJunction(junction);
  endpoint.stop();
}
