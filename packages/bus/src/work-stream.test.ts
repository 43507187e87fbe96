import { describe, expect, test } from "bun:test";
import type { JetStreamManager } from "@nats-io/jetstream";
import { ensureWorkStream } from "./nats-bus.ts";

/** A stream manager whose `add` fails with the server's error code, and whose `info` finds the stream or not. */
function manager(addErrorCode: number, streamThere: boolean) {
  const updates: unknown[] = [];
  const jsm = {
    streams: {
      add: async () => {
        throw Object.assign(new Error(`api error ${addErrorCode}`), { code: addErrorCode });
      },
      info: async () => {
        if (!streamThere) throw Object.assign(new Error("stream not found"), { code: 10059 });
        return {};
      },
      update: async (_name: string, change: unknown) => {
        updates.push(change);
        return {};
      },
    },
  } as unknown as JetStreamManager;
  return { jsm, updates };
}

describe("the work stream at start", () => {
  test("lost the creation race ('subjects overlap', 10065) while another process made it: opens, brings its settings", async () => {
    const { jsm, updates } = manager(10065, true);
    await ensureWorkStream(jsm, 120_000);
    expect(updates).toEqual([{ duplicate_window: 120_000 * 1_000_000 }]);
  });

  test("subjects overlapping another stream that is not ours: the start fails", async () => {
    const { jsm } = manager(10065, false);
    await expect(ensureWorkStream(jsm, 120_000)).rejects.toThrow("api error 10065");
  });

  test("there with another configuration (10058): brought to ours; any other error fails the start", async () => {
    const same = manager(10058, true);
    await ensureWorkStream(same.jsm, 60_000);
    expect(same.updates).toHaveLength(1);
    await expect(ensureWorkStream(manager(10077, true).jsm, 60_000)).rejects.toThrow("api error 10077");
  });
});
