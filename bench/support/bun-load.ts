/**
 * Fallback load generator when wrk is not installed: `concurrency` loops of keep-alive fetches for
 * `seconds`, run as its own process. Prints the same JSON line as wrk-report.lua.
 *   bun bench/support/bun-load.ts <url> <concurrency> <seconds> <headers as JSON>
 */
const [url, concurrency, seconds, headersJson] = process.argv.slice(2) as [string, string, string, string];
const headers = JSON.parse(headersJson) as Record<string, string>;
const latencies: number[] = [];
let errors = 0;
const started = performance.now();
const until = started + Number(seconds) * 1000;

async function loop(): Promise<void> {
  while (performance.now() < until) {
    const t = performance.now();
    try {
      const res = await fetch(url, { headers });
      await res.arrayBuffer();
      if (res.status >= 400) errors++;
    } catch {
      errors++;
    }
    latencies.push((performance.now() - t) * 1000);
  }
}

await Promise.all(Array.from({ length: Number(concurrency) }, loop));
const durationUs = Math.round((performance.now() - started) * 1000);
latencies.sort((a, b) => a - b);
const at = (q: number) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0);
process.stdout.write(
  `${JSON.stringify({ requests: latencies.length, durationUs, errors, p50Us: at(0.5), p99Us: at(0.99) })}\n`,
);

export {};
