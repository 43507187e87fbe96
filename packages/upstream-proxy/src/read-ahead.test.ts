import { describe, expect, test } from "bun:test";
import { READ_AHEAD_ABOVE_BYTES, READ_AHEAD_UP_TO_BYTES, readAhead, readsAhead } from "./read-ahead.ts";

/** An upstream body the test feeds by hand; `cancelled` resolves with the reason once the proxy lets go. */
function fedBody() {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const cancelled = Promise.withResolvers<unknown>();
  const stream = new ReadableStream<Uint8Array>({
    start: (c) => {
      controller = c;
    },
    cancel: (reason) => cancelled.resolve(reason),
  });
  return { stream, controller, cancelled: cancelled.promise };
}

const bytes = (n: number, fill: number) => new Uint8Array(n).fill(fill);
const upstreamAnswer = (body: BodyInit | null, length: number, status = 200) =>
  new Response(body, { status, statusText: "Fine", headers: { "content-length": String(length), "x-up": "1" } });

describe("readsAhead", () => {
  const sized = (length: number | undefined, status = 200) =>
    new Response(status === 204 ? null : "x", {
      status,
      headers: length === undefined ? {} : { "content-length": String(length) },
    });

  test("2xx answers of a known length above 14 KiB and up to 64 KiB", () => {
    expect(readsAhead(sized(READ_AHEAD_ABOVE_BYTES + 1), "GET")).toBe(true);
    expect(readsAhead(sized(READ_AHEAD_UP_TO_BYTES), "POST")).toBe(true);
    expect(readsAhead(sized(READ_AHEAD_ABOVE_BYTES), "GET")).toBe(false);
    expect(readsAhead(sized(READ_AHEAD_UP_TO_BYTES + 1), "GET")).toBe(false);
  });

  test("never an answer of unknown length, to HEAD, without a body or not 2xx", () => {
    expect(readsAhead(sized(undefined), "GET")).toBe(false);
    expect(readsAhead(sized(100_000), "HEAD")).toBe(false);
    expect(readsAhead(sized(100_000, 204), "GET")).toBe(false);
    expect(readsAhead(sized(100_000, 404), "GET")).toBe(false);
    expect(readsAhead(sized(100_000, 503), "GET")).toBe(false);
  });

  test("a small answer's body is never touched (on Bun, reading it makes a stream of a natively piped body)", () => {
    let reads = 0;
    const watched = (length: number | undefined) => {
      const res = sized(length);
      const body = res.body;
      Object.defineProperty(res, "body", {
        get: () => {
          reads++;
          return body;
        },
      });
      return res;
    };
    expect(readsAhead(watched(64), "GET")).toBe(false);
    expect(readsAhead(watched(undefined), "GET")).toBe(false);
    expect(readsAhead(watched(READ_AHEAD_UP_TO_BYTES + 1), "GET")).toBe(false);
    expect(reads).toBe(0);
    expect(readsAhead(watched(20_000), "GET")).toBe(true);
    expect(reads).toBe(1);
  });
});

describe("readAhead", () => {
  test("a body that arrived whole: the upstream's status, headers and bytes, streamed", async () => {
    const { stream, controller } = fedBody();
    controller.enqueue(bytes(20_000, 1));
    controller.close();
    const res = await readAhead(upstreamAnswer(stream, 20_000, 203));
    expect(res.status).toBe(203);
    expect(res.statusText).toBe("Fine");
    expect(res.headers.get("x-up")).toBe("1");
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(bytes(20_000, 1));
  });

  test("a body still arriving: the first two chunks are held, then everything streams in order", async () => {
    const { stream, controller } = fedBody();
    controller.enqueue(bytes(10, 1));
    controller.enqueue(bytes(10, 2));
    const answered = readAhead(upstreamAnswer(stream, 30));
    const res = await answered;
    controller.enqueue(bytes(10, 3));
    controller.close();
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(
      Uint8Array.from([...bytes(10, 1), ...bytes(10, 2), ...bytes(10, 3)]),
    );
  });

  test("an upstream failure before the first two chunks rejects (Junction answers 502 or retries)", async () => {
    const { stream, controller } = fedBody();
    controller.enqueue(bytes(10, 1));
    const answered = readAhead(upstreamAnswer(stream, 30));
    controller.error(new Error("reset"));
    await expect(answered).rejects.toThrow("reset");
  });

  test("an upstream failure after the answer started errors the caller's body: never a clean, shorter one", async () => {
    const { stream, controller } = fedBody();
    controller.enqueue(bytes(10, 1));
    controller.enqueue(bytes(10, 2));
    const res = await readAhead(upstreamAnswer(stream, 100));
    controller.error(new Error("reset"));
    await expect(res.arrayBuffer()).rejects.toBeDefined();
  });

  test("a caller that leaves cancels the upstream body", async () => {
    const { stream, controller, cancelled } = fedBody();
    controller.enqueue(bytes(10, 1));
    controller.enqueue(bytes(10, 2));
    const res = await readAhead(upstreamAnswer(stream, 100));
    await (res.body as ReadableStream<Uint8Array>).cancel("gone");
    expect(await cancelled).toBe("gone");
  });
});
