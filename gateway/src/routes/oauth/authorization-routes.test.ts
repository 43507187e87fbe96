import { describe, expect, test } from "bun:test";
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import {
  AuthorizationOutcome,
  CompleteAuthorizationResponseSchema,
} from "@junction/contracts/connection/v1/connection_service_pb";
import { ManualClock, memoryLogger } from "@junction/platform";
import { AuthSockets } from "../../auth-socket/auth-sockets.ts";
import type { GatewayClients } from "../../clients.ts";
import type { RouteContext } from "../../router.ts";
import { authorizationRoutes } from "./authorization-routes.ts";

// The callback's wrapping, with the connection service replaced by a failing stand-in: whatever the
// service does, the browser gets a page.

function callbackWith(completeAuthorization: () => Promise<unknown>, query = "?state=s&code=c") {
  const clock = new ManualClock();
  const sockets = new AuthSockets({ clock, logger: memoryLogger() });
  const route = authorizationRoutes(sockets.relay, { clock }).find((r) => r.pattern === "/oauth/callback");
  if (!route) throw new Error("no callback route");
  const logger = memoryLogger();
  const ctx: RouteContext = {
    req: new Request(`http://junction.test/oauth/callback${query}`),
    headers: {},
    url: new URL(`http://junction.test/oauth/callback${query}`),
    params: {},
    requestId: "req_test_1",
    environmentId: "",
    clients: { connection: { completeAuthorization } } as unknown as GatewayClients,
    logger,
    baseUrl: "http://junction.test",
  };
  return { response: route.handler(ctx), logger };
}

describe("GET /oauth/callback", () => {
  test("an unexpected failure is a 500 page with the request id, its cause logged and not shown", async () => {
    const { response, logger } = callbackWith(async () => {
      throw new Error("database is on fire: secret-detail");
    });
    const res = await response;
    expect(res.status).toBe(500);
    expect(res.headers.get("content-type")).toContain("text/html");
    const html = await res.text();
    expect(html).toContain('<span id="code">internal_error</span>');
    expect(html).toContain("req_test_1");
    expect(html).not.toContain("secret-detail");
    expect(logger.lines.join("\n")).toContain("secret-detail");
  });

  test("a service that does not answer in time is a page, not a hang", async () => {
    const { response } = callbackWith(async () => {
      throw new ConnectError("deadline", Code.DeadlineExceeded);
    });
    const res = await response;
    expect(res.status).toBe(504);
    expect(await res.text()).toContain('<span id="code">timeout</span>');
  });

  test("each outcome has its page; values are escaped", async () => {
    const { response } = callbackWith(async () =>
      create(CompleteAuthorizationResponseSchema, {
        outcome: AuthorizationOutcome.UPSTREAM_ERROR,
        message: "The provider answered <script>alert(1)</script>",
        upstreamError: "server_error",
      }),
    );
    const res = await response;
    expect(res.status).toBe(502);
    const html = await res.text();
    expect(html).toContain('<span id="code">upstream_error</span>');
    expect(html).not.toContain("<script>alert(1)</script>");
    expect(html).toContain("&#60;script&#62;");
    expect(res.headers.get("content-security-policy")).toContain("default-src 'none'");
  });
});
