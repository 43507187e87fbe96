/**
 * The benchmark's upstream: a local API with a small JSON answer, a 16 KB one and a 100 KB one, run as its own
 * process. It checks for a bearer token, as a real API would, so a proxy that forgot to inject one fails.
 *   bun bench/support/upstream.ts <port>
 */
const SMALL = JSON.stringify({ kind: "calendar#calendarListEntry", id: "alice@example.com", primary: true });
const LARGE = new Uint8Array(100 * 1024).map((_, i) => 97 + (i % 26));
const MEDIUM = LARGE.subarray(0, 16 * 1024);

const server = Bun.serve({
  port: Number(process.argv[2] ?? 0),
  hostname: "127.0.0.1",
  fetch(req) {
    if (!req.headers.get("authorization")?.startsWith("Bearer ")) return new Response("no token", { status: 401 });
    const path = new URL(req.url).pathname;
    if (path === "/small") return new Response(SMALL, { headers: { "content-type": "application/json" } });
    if (path === "/100k") return new Response(LARGE, { headers: { "content-type": "application/octet-stream" } });
    if (path === "/16k") return new Response(MEDIUM, { headers: { "content-type": "application/octet-stream" } });
    return new Response("not found", { status: 404 });
  },
});
process.stdout.write(`listening ${server.port}\n`);

export {};
