/**
 * The floor (minimal-checked-proxy.ts) served three ways, to measure what the way of serving costs (not a
 * product; thread-ab.ts's `script=` target, the variant in FLOOR_VARIANT):
 *   fetch:   Bun.serve's fetch, as the floor is served;
 *   routes:  Bun.serve's native `routes` for `/proxy/*`, fetch for the rest;
 *   upgrade: fetch, after the WebSocket check the gateway's server makes first (serve.ts).
 *   bun bench/support/floor-variants.ts <port> <upstream> <secret key> <integration> <connection>
 */
import { minimalCheckedProxy } from "./minimal-checked-proxy.ts";

const [port, upstream, secretKey, integration, connectionId] = process.argv.slice(2) as string[];
const handler = minimalCheckedProxy(
  upstream as string,
  secretKey as string,
  integration as string,
  connectionId as string,
);
const variant = process.env.FLOOR_VARIANT ?? "fetch";
const notFound = () => new Response("not found", { status: 404 });
const base = { port: Number(port), hostname: "127.0.0.1" };
if (variant === "routes") {
  Bun.serve({ ...base, routes: { "/proxy/*": handler }, fetch: notFound });
} else if (variant === "upgrade") {
  Bun.serve({
    ...base,
    fetch: (req) => {
      if (req.method === "GET" && req.headers.get("upgrade")?.toLowerCase() === "websocket") return notFound();
      return handler(req);
    },
  });
} else Bun.serve({ ...base, fetch: handler });
process.stdout.write(`listening ${port}\n`);
