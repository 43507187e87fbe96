import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { openDatabase } from "@junction/platform";
import type { Bus, Job } from "./bus.ts";
import { MemoryBus } from "./memory-bus.ts";
import { NatsBus } from "./nats-bus.ts";
import { startNatsServer } from "../testing/nats-server.ts";
import { waitFor } from "../testing/wait-for.ts";

/** Enqueues one job with headers and collects its deliveries (nakked once, then acked). */
async function headersOfDeliveries(bus: Bus, queue: string): Promise<Record<string, string>[]> {
  const seen: Record<string, string>[] = [];
  await bus.consume(queue, async (job: Job) => {
    seen.push(job.headers);
    if (job.deliveryCount === 1) await job.nak();
    else await job.ack();
  });
  await bus.enqueue(queue, new TextEncoder().encode("x"), { headers: { traceparent: "00-abc-def-01" } });
  await bus.enqueue(queue, new TextEncoder().encode("y"));
  await waitFor(() => seen.length === 4, 5_000, "two deliveries of each job");
  return seen;
}

describe("job headers", () => {
  test("the in-process bus hands enqueue's headers to every delivery of the job, and none to a job without", async () => {
    const bus = new MemoryBus(openDatabase(":memory:"));
    const seen = await headersOfDeliveries(bus, "headers-memory");
    expect(seen.filter((h) => h.traceparent === "00-abc-def-01")).toHaveLength(2);
    expect(seen.filter((h) => Object.keys(h).length === 0)).toHaveLength(2);
    await bus.close();
  });

  describe("over NATS", () => {
    let nats: Awaited<ReturnType<typeof startNatsServer>>;
    let bus: NatsBus;
    beforeAll(async () => {
      nats = await startNatsServer();
      bus = await NatsBus.connect({ servers: nats.url, name: "job-headers" });
    });
    afterAll(async () => {
      await bus.close();
      await nats.stop();
    });

    test("JetStream carries enqueue's headers to every delivery of the job", async () => {
      const seen = await headersOfDeliveries(bus, "headers-nats");
      expect(seen.filter((h) => h.traceparent === "00-abc-def-01")).toHaveLength(2);
      expect(seen.filter((h) => h.traceparent === undefined)).toHaveLength(2);
    });
  });
});
