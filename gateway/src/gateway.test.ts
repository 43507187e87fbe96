import { describe, expect, test } from "bun:test";
import { createLogger } from "@junction/platform";
import type { GatewayClients } from "./clients.ts";
import { createGateway } from "./gateway.ts";
import type { RouteContext } from "./router.ts";

describe("the gateway's route context", () => {
  // A route that needs no key and reports what it was given (no service is called).
  const seen: RouteContext[] = [];
  const gateway = createGateway({
    clients: {} as GatewayClients,
    baseUrl: "http://j.test",
    logger: createLogger({ sink: () => {} }),
    routes: [
      {
        method: "GET",
        pattern: "/probe/*",
        auth: false,
        handler: async (ctx) => {
          seen.push(ctx);
          return new Response(null, { status: 204 });
        },
      },
    ],
  });
  const probe = async (url: string) => {
    seen.length = 0;
    expect((await gateway.fetch(new Request(url))).status).toBe(204);
    return seen[0] as RouteContext;
  };

  test("carries the target read without the URL parser, which the proxy trusts to be plain", async () => {
    const ctx = await probe("http://127.0.0.1:3003/probe/calendar/v3/a%40b?q=1");
    expect(ctx.target).toEqual({ pathname: "/probe/calendar/v3/a%40b", search: "?q=1" });
  });

  test("carries no target when the URL had to be parsed: routes read ctx.url, and the proxy checks it again", async () => {
    for (const url of [
      "http://127.0.0.1:3003/probe/a'b",
      "http://127.0.0.1:3003/probe/a%2E%2E/b",
      "http://127.0.0.1:3003/probe/x/.well-known/y",
    ]) {
      const ctx = await probe(url);
      expect(ctx.target).toBeUndefined();
      expect(ctx.url.pathname).toBe(new URL(url).pathname);
    }
  });
});
