/**
 * A fixed number of keep-alive GETs at a concurrency, as its own process (for profiles: the same work for
 * every target, whatever the machine's speed). Prints { errors, ms } as JSON.
 *   bun bench/support/fixed-load.ts <url> <requests> <concurrency> <headers as JSON>
 */
const [url, requests, concurrency, headersJson] = process.argv.slice(2) as [string, string, string, string];
const headers = JSON.parse(headersJson) as Record<string, string>;
let left = Number(requests);
let errors = 0;
const started = performance.now();
await Promise.all(
  Array.from({ length: Number(concurrency) }, async () => {
    while (left-- > 0) {
      const res = await fetch(url, { headers });
      await res.arrayBuffer();
      if (res.status !== 200) errors++;
    }
  }),
);
process.stdout.write(`${JSON.stringify({ errors, ms: performance.now() - started })}\n`);

export {};
