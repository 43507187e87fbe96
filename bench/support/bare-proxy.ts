/**
 * The baseline: a bare Bun passthrough proxy with the same URL shape as Junction's (/proxy/{path}),
 * forwarding method, headers and body to the upstream and returning fetch's response as it is (Bun's
 * fastest way to stream it back). No auth, no checks, no token: what any proxy written on Bun costs at
 * least.
 *   bun bench/support/bare-proxy.ts <port> <upstream base URL>
 */
const upstream = process.argv[3] as string;

const server = Bun.serve({
  port: Number(process.argv[2] ?? 0),
  hostname: "127.0.0.1",
  fetch(req) {
    const url = new URL(req.url);
    return fetch(`${upstream}${url.pathname.slice("/proxy".length)}${url.search}`, {
      method: req.method,
      headers: req.headers,
      body: req.body,
      redirect: "manual",
      decompress: false,
    } as RequestInit);
  },
});
process.stdout.write(`listening ${server.port}\n`);

export {};
