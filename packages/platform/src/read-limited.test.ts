import { describe, expect, test } from "bun:test";
import { readTextLimited } from "./read-limited.ts";

const streamOf = (...parts: string[]) => new Response(parts.join("")).body;
const tooLarge = () => new Error("too large");

describe("readTextLimited", () => {
  test("reads the whole body as text when it fits", async () => {
    expect(await readTextLimited(streamOf("héllo ", "wörld"), 64, tooLarge)).toBe("héllo wörld");
    expect(await readTextLimited(null, 64, tooLarge)).toBe("");
  });

  test("throws the caller's error, and stops reading, past the limit", async () => {
    let pulled = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(new Uint8Array(10));
      },
    });
    await expect(readTextLimited(endless, 25, tooLarge)).rejects.toThrow("too large");
    expect(pulled).toBeLessThan(6);
  });
});
