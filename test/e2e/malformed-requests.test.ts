import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connect } from "node:net";
import { startTestJunction, type TestJunction } from "../support/embedded-junction.ts";

// What Bun.serve itself answers to requests it cannot parse, before Junction sees them
// (documented in the README's "Security"). These pin today's behaviour (Bun 1.4): a Bun upgrade that
// changes it fails here, and the README is updated with it.

let j: TestJunction;
let port: number;
beforeAll(async () => {
  j = await startTestJunction();
  port = Number(new URL(j.url).port);
});
afterAll(async () => {
  await j.close();
});

/** Writes `bytes` as they are and reads everything until the server closes the socket (5 s at most). */
function exchange(bytes: string): Promise<{ text: string; closedByServer: boolean }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => socket.write(bytes));
    const chunks: Buffer[] = [];
    const deadline = setTimeout(() => {
      socket.destroy();
      resolve({ text: Buffer.concat(chunks).toString("latin1"), closedByServer: false });
    }, 5000);
    socket.on("data", (c: Buffer) => chunks.push(c));
    socket.on("error", (err: NodeJS.ErrnoException) => {
      // A reset is the server closing too ("close" follows); anything else is the test's problem.
      if (err.code === "ECONNRESET" || err.code === "EPIPE") return;
      clearTimeout(deadline);
      reject(err);
    });
    socket.on("close", () => {
      clearTimeout(deadline);
      resolve({ text: Buffer.concat(chunks).toString("latin1"), closedByServer: true });
    });
  });
}

const request = (line: string, headers: string[] = ["Host: x"]) =>
  `${line}\r\n${[...headers, "Connection: close"].join("\r\n")}\r\n\r\n`;
const statusLine = (text: string) => text.split("\r\n")[0];
/** Bun's own answers: a status line, `Connection: close`, no body, and the socket closed. */
const bunAnswer = (status: string) => `HTTP/1.1 ${status}\r\nConnection: close\r\n\r\n`;

describe("requests Bun.serve refuses before Junction sees them", () => {
  test("a raw space in the request target: 505 and the connection closed", async () => {
    const res = await exchange(request("GET /health x HTTP/1.1"));
    expect(res).toEqual({ text: bunAnswer("505 HTTP Version Not Supported"), closedByServer: true });
  });

  test("an unknown or lower-case method: the connection closed without an answer", async () => {
    for (const line of ["BREW /health HTTP/1.1", "get /health HTTP/1.1"]) {
      expect(await exchange(request(line))).toEqual({ text: "", closedByServer: true });
    }
  });

  test("headers of 16 KiB or more, or too many header lines: 431 and the connection closed", async () => {
    const big = (n: number) => request("GET /health HTTP/1.1", ["Host: x", `X-Big: ${"a".repeat(n)}`]);
    expect(statusLine((await exchange(big(16_000))).text)).toBe("HTTP/1.1 200 OK");
    const tooBig = await exchange(big(16_384));
    expect(tooBig).toEqual({ text: bunAnswer("431 Request Header Fields Too Large"), closedByServer: true });
    const many = Array.from({ length: 200 }, (_, i) => `X-H${i}: v`);
    expect((await exchange(request("GET /health HTTP/1.1", ["Host: x", ...many]))).text).toBe(
      bunAnswer("431 Request Header Fields Too Large"),
    );
    expect((await exchange(request(`GET /${"a".repeat(70_000)} HTTP/1.1`))).text).toBe(
      bunAnswer("431 Request Header Fields Too Large"),
    );
  });

  test("an unknown HTTP version or bare LF line ends: 505; no Host, a control character, or both Content-Length and Transfer-Encoding: 400", async () => {
    expect((await exchange(request("GET /health HTTP/9.9"))).text).toBe(bunAnswer("505 HTTP Version Not Supported"));
    expect((await exchange("GET /health HTTP/1.1\nHost: x\nConnection: close\n\n")).text).toBe(
      bunAnswer("505 HTTP Version Not Supported"),
    );
    expect((await exchange(request("GET /health HTTP/1.1", []))).text).toBe(bunAnswer("400 Bad Request"));
    expect((await exchange(request("GET /health HTTP/1.1", ["Host: x", "X-A: a\x01b"]))).text).toBe(
      bunAnswer("400 Bad Request"),
    );
    const smuggle = request("POST /health HTTP/1.1", ["Host: x", "Content-Length: 3", "Transfer-Encoding: chunked"]);
    expect((await exchange(`${smuggle}0\r\n\r\n`)).text).toBe(bunAnswer("400 Bad Request"));
  });

  test("TRACE and CONNECT are parsed and reach Junction, which answers with its error body", async () => {
    const trace = await exchange(request("TRACE /health HTTP/1.1"));
    expect(statusLine(trace.text)).toBe("HTTP/1.1 405 Method Not Allowed");
    expect(trace.text).toContain('"code":"method_not_allowed"');
    const tunnel = await exchange(request("CONNECT example.com:443 HTTP/1.1", ["Host: example.com:443"]));
    expect(statusLine(tunnel.text)).toBe("HTTP/1.1 404 Not Found");
    expect(tunnel.text).toContain('"code":"not_found"');
  });
});
