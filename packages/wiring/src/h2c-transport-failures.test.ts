import { afterEach, describe, expect, test } from "bun:test";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { WebhookService } from "@junction/contracts/webhook/v1/webhook_service_pb";
import { type Subprocess, spawn } from "bun";
import { fromConnectError } from "@junction/platform";
import { h2cTransport, type ServiceServer, serveH2c } from "@junction/platform/h2c";
import { freePort } from "@junction/platform/testing/free-port";
import { asUnavailable } from "@junction/platform/transport-failure";

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A process serving h2c that never answers: killing it cuts the calls in flight. */
async function silentPeer(): Promise<{ url: string; proc: Subprocess }> {
  const port = await freePort();
  const script = `require("node:http2").createServer(() => {}).listen(${port}, "127.0.0.1", () => console.log("up"));`;
  const proc = spawn(["bun", "-e", script], { stdout: "pipe", stderr: "inherit" });
  cleanups.push(() => proc.kill("SIGKILL"));
  const reader = (proc.stdout as ReadableStream<Uint8Array>).getReader();
  const { value } = await reader.read();
  expect(new TextDecoder().decode(value)).toContain("up");
  return { url: `http://127.0.0.1:${port}`, proc };
}

async function serving(err: ConnectError): Promise<ServiceServer> {
  const server = await serveH2c(
    (router) =>
      router.service(WebhookService, {
        receiveNotifications() {
          throw err;
        },
      }),
    { port: 0 },
  );
  cleanups.push(() => server.close());
  return server;
}

const call = (url: string, timeoutMs?: number) =>
  createClient(WebhookService, h2cTransport(url))
    .receiveNotifications({ requests: [] }, timeoutMs ? { timeoutMs } : {})
    .then(
      () => {
        throw new Error("the call succeeded");
      },
      (err: unknown) => fromConnectError(err),
    );

describe("a call over h2c whose transport failed", () => {
  test("a refused connection fails Unavailable, service_unavailable, naming no address", async () => {
    const err = await call(`http://127.0.0.1:${await freePort()}`);
    expect({ status: err.status, code: err.code }).toEqual({ status: Code.Unavailable, code: "service_unavailable" });
    expect(err.message).not.toContain("127.0.0.1");
  });

  test("a peer killed mid-call (SIGKILL) fails Unavailable, not Canceled or Aborted", async () => {
    const peer = await silentPeer();
    const pending = call(peer.url);
    // Let the request reach the peer (its stream opened) before the kill.
    await new Promise((resolve) => setImmediate(resolve));
    peer.proc.kill("SIGKILL");
    const err = await pending;
    expect({ status: err.status, code: err.code }).toEqual({ status: Code.Unavailable, code: "service_unavailable" });
  });

  test("a reset connection (connect-node's Aborted, read ECONNRESET) becomes Unavailable, the reset kept as the cause", () => {
    const reset = Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET", syscall: "read" });
    const aborted = new ConnectError("read ECONNRESET", Code.Aborted, undefined, undefined, reset);
    const mapped = asUnavailable(aborted, "junction.webhook.v1.WebhookService") as ConnectError;
    expect(mapped.code).toBe(Code.Unavailable);
    expect(fromConnectError(mapped).code).toBe("service_unavailable");
    expect(mapped.rawMessage).not.toContain("ECONNRESET");
    expect(mapped.cause).toBe(aborted);
  });

  test("a deadline keeps DeadlineExceeded", async () => {
    const peer = await silentPeer();
    const err = await call(peer.url, 100);
    expect(err.status).toBe(Code.DeadlineExceeded);
  });

  test("errors the peer answered keep their codes (Aborted, Internal, a stable code)", async () => {
    for (const sent of [
      new ConnectError("changed concurrently", Code.Aborted),
      new ConnectError("internal error", Code.Internal),
      new ConnectError("gone", Code.Unavailable, new Headers({ "junction-error-code": "bus_unavailable" })),
    ]) {
      const server = await serving(sent);
      const err = await call(server.url);
      expect({ status: err.status, message: err.message }).toEqual({ status: sent.code, message: sent.rawMessage });
    }
  });
});
