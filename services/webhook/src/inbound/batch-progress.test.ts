import { describe, expect, test } from "bun:test";
import { create } from "@bufbuild/protobuf";
import { NotificationReceivedSchema } from "@junction/contracts/events/v1/events_pb";
import { BatchProgress } from "./batch-progress.ts";

const batch = (ids: string[]) => ids.map((id) => create(NotificationReceivedSchema, { id }));

describe("BatchProgress", () => {
  test("a batch job taken again after an item failed processes only the items not done", async () => {
    const progress = new BatchProgress(() => 0);
    const items = batch(["ntf_a", "ntf_b", "ntf_c"]);
    const seen: string[] = [];
    let acks = 0;
    const ack = async () => void acks++;
    const failing = progress.run(
      items,
      async (n) => {
        if (n.id === "ntf_b") throw new Error("channel service down");
        seen.push(n.id);
      },
      ack,
    );
    await expect(failing).rejects.toThrow("channel service down");
    expect(acks).toBe(0);
    await progress.run(items, async (n) => void seen.push(n.id), ack);
    expect(seen.sort()).toEqual(["ntf_a", "ntf_b", "ntf_c"]);
    expect(acks).toBe(1);
  });

  test("a job redelivered before its ack landed processes nothing again", async () => {
    const progress = new BatchProgress(() => 0);
    const items = batch(["ntf_a", "ntf_b"]);
    let processed = 0;
    let releaseAck: (() => void) | undefined;
    const first = progress.run(
      items,
      async () => void processed++,
      () => new Promise<void>((resolve) => (releaseAck = resolve)),
    );
    // Wait until the first run reached its ack.
    while (releaseAck === undefined) await new Promise((resolve) => setImmediate(resolve));
    await progress.run(
      items,
      async () => void processed++,
      async () => {},
    );
    releaseAck();
    await first;
    expect(processed).toBe(2);
  });
});
