import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import type { Bus, BusMessage, Job } from "./bus.ts";
import { waitFor } from "../testing/wait-for.ts";

/** What a conformance run needs: a fresh bus, optionally a way to restart it on the same storage. */
export interface BusUnderTest {
  bus: Bus;
  /** A new bus on the same durable storage, as after a restart (close the old one first). */
  reopen?: () => Promise<Bus>;
  /** Closes every bus it made and removes their storage. */
  cleanup: () => Promise<void>;
}

// Short enough to keep the suite fast, long enough that a busy machine does not redeliver early.
const ACK_WAIT_MS = 300;
// Windows in which something must NOT happen; each is the only fixed wait in its test.
const QUIET_MS = 300;
// Timer granularity on both sides of a delay.
const TOLERANCE_MS = 15;

const encode = (s: string) => new TextEncoder().encode(s);
const decode = (b: Uint8Array) => new TextDecoder().decode(b);

let counter = 0;
/** Names unique to one test, so that runs against one shared server never see each other's messages. */
function unique(prefix: string): string {
  counter++;
  return `${prefix}-${counter}-${crypto.randomUUID().slice(0, 8)}`;
}

interface Delivery {
  text: string;
  deliveryCount: number;
  msgId: string | undefined;
  at: number;
}

function record(job: Job): Delivery {
  return { text: decode(job.data), deliveryCount: job.deliveryCount, msgId: job.msgId, at: Date.now() };
}

/**
 * The behaviours every Bus must show, registered as `describe`/`test` blocks. Both the in-process
 * bus and the NATS bus run it, so that code written against one works on the other.
 */
export function busConformance(name: string, factory: () => Promise<BusUnderTest>): void {
  describe(`${name} bus`, () => {
    let under: BusUnderTest;
    let bus: Bus;

    beforeEach(async () => {
      under = await factory();
      bus = under.bus;
    });

    afterEach(async () => {
      await under.cleanup();
    });

    describe("publish/subscribe", () => {
      test("publish reaches every plain subscriber with its data and headers", async () => {
        const subject = `conf.${unique("s")}.event`;
        const a: BusMessage[] = [];
        const b: BusMessage[] = [];
        await bus.subscribe(subject, (m) => void a.push(m));
        await bus.subscribe(subject, (m) => void b.push(m));

        await bus.publish(subject, encode("hello"), { "x-trace": "t1" });

        await waitFor(() => a.length === 1 && b.length === 1, 5_000, "both subscribers");
        for (const m of [a[0], b[0]]) {
          expect(m?.subject).toBe(subject);
          expect(decode(m?.data ?? new Uint8Array())).toBe("hello");
          expect(m?.headers["x-trace"]).toBe("t1");
        }
      });

      test("* matches exactly one token", async () => {
        const root = `conf.${unique("w")}`;
        const got: string[] = [];
        await bus.subscribe(`${root}.*.end`, (m) => void got.push(m.subject));

        await bus.publish(`${root}.one.end`, encode("1"));
        await bus.publish(`${root}.one.two.end`, encode("2"));
        await bus.publish(`${root}.end`, encode("3"));
        // Delivery is in order, so once this arrives the ones before it would have too.
        await bus.publish(`${root}.last.end`, encode("sentinel"));

        await waitFor(() => got.includes(`${root}.last.end`), 5_000, "sentinel");
        expect(got).toEqual([`${root}.one.end`, `${root}.last.end`]);
      });

      test("> matches one or more trailing tokens", async () => {
        const root = `conf.${unique("w")}`;
        const got: string[] = [];
        await bus.subscribe(`${root}.>`, (m) => void got.push(m.subject));

        await bus.publish(root, encode("none"));
        await bus.publish(`${root}.a`, encode("1"));
        await bus.publish(`${root}.a.b.c`, encode("2"));
        await bus.publish(`conf.other.${unique("x")}`, encode("elsewhere"));
        await bus.publish(`${root}.sentinel`, encode("sentinel"));

        await waitFor(() => got.includes(`${root}.sentinel`), 5_000, "sentinel");
        expect(got).toEqual([`${root}.a`, `${root}.a.b.c`, `${root}.sentinel`]);
      });

      test("a queue group gives each message to exactly one member, spread across members", async () => {
        const subject = `conf.${unique("q")}.work`;
        const group = unique("group");
        const members: string[][] = [[], [], []];
        for (const received of members) {
          await bus.subscribe(subject, (m) => void received.push(decode(m.data)), { queueGroup: group });
        }
        const everyone: string[] = [];
        await bus.subscribe(subject, (m) => void everyone.push(decode(m.data)));

        for (let i = 0; i < 30; i++) await bus.publish(subject, encode(`m${i}`));

        const total = () => members.reduce((n, r) => n + r.length, 0);
        await waitFor(() => everyone.length === 30 && total() >= 30, 5_000, "30 messages to the group");
        expect(new Set(members.flat()).size).toBe(30);
        expect(total()).toBe(30);
        for (const received of members) expect(received.length).toBeGreaterThan(0);
      });

      test("stop() ends delivery to that subscriber only", async () => {
        const subject = `conf.${unique("stop")}.event`;
        const stopped: string[] = [];
        const kept: string[] = [];
        const sub = await bus.subscribe(subject, (m) => void stopped.push(decode(m.data)));
        await bus.subscribe(subject, (m) => void kept.push(decode(m.data)));

        await bus.publish(subject, encode("before"));
        await waitFor(() => stopped.length === 1 && kept.length === 1, 5_000, "first message");
        await sub.stop();
        await bus.publish(subject, encode("after"));

        await waitFor(() => kept.length === 2, 5_000, "second message to the other subscriber");
        expect(stopped).toEqual(["before"]);
      });
    });

    describe("durable queues", () => {
      test("an acked job is delivered exactly once", async () => {
        const queue = unique("ack");
        const got: Delivery[] = [];
        await bus.consume(
          queue,
          async (job) => {
            got.push(record(job));
            expect(job.queue).toBe(queue);
            await job.ack();
          },
          { ackWaitMs: ACK_WAIT_MS },
        );

        expect(await bus.enqueue(queue, encode("job-1"))).toEqual({ duplicate: false });

        await waitFor(() => got.length === 1, 5_000, "the job");
        expect(got[0]).toMatchObject({ text: "job-1", deliveryCount: 1, msgId: undefined });
        await Bun.sleep(QUIET_MS); // longer than the ack wait: a lost ack would show as a redelivery
        expect(got).toHaveLength(1);
      });

      test("a nakked job is delivered again with deliveryCount 2", async () => {
        const queue = unique("nak");
        const got: Delivery[] = [];
        await bus.consume(queue, async (job) => {
          got.push(record(job));
          if (job.deliveryCount === 1) await job.nak();
          else await job.ack();
        });

        await bus.enqueue(queue, encode("retry-me"));

        await waitFor(() => got.length === 2, 5_000, "the redelivery");
        expect(got.map((d) => [d.text, d.deliveryCount])).toEqual([
          ["retry-me", 1],
          ["retry-me", 2],
        ]);
      });

      test("a job nakked with a delay is not delivered again before the delay", async () => {
        const queue = unique("nak-delay");
        const delayMs = 400;
        const got: Delivery[] = [];
        let nakkedAt = 0;
        await bus.consume(queue, async (job) => {
          got.push(record(job));
          if (job.deliveryCount === 1) {
            nakkedAt = Date.now();
            await job.nak(delayMs);
          } else {
            await job.ack();
          }
        });

        await bus.enqueue(queue, encode("later"));

        await waitFor(() => got.length === 2, 5_000, "the delayed redelivery");
        expect((got[1]?.at ?? 0) - nakkedAt).toBeGreaterThanOrEqual(delayMs - TOLERANCE_MS);
        expect(got[1]?.deliveryCount).toBe(2);
      });

      test("a job neither acked nor nakked within the ack wait is delivered again", async () => {
        const queue = unique("ack-wait");
        const got: Delivery[] = [];
        await bus.consume(
          queue,
          async (job) => {
            got.push(record(job));
            // First delivery: return without settling, as a handler that lost track of the job would.
            if (job.deliveryCount > 1) await job.ack();
          },
          { ackWaitMs: ACK_WAIT_MS },
        );

        await bus.enqueue(queue, encode("slow"));

        await waitFor(() => got.length === 2, 5_000, "the redelivery after the ack wait");
        expect((got[1]?.at ?? 0) - (got[0]?.at ?? 0)).toBeGreaterThanOrEqual(ACK_WAIT_MS - TOLERANCE_MS);
        expect(got[1]?.deliveryCount).toBe(2);
      });

      test("a job nakked on every delivery is dropped after maxDeliver", async () => {
        const queue = unique("max-nak");
        const got: Delivery[] = [];
        await bus.consume(
          queue,
          async (job) => {
            got.push(record(job));
            if (decode(job.data) === "doom") await job.nak();
            else await job.ack();
          },
          { maxDeliver: 3, ackWaitMs: ACK_WAIT_MS },
        );

        await bus.enqueue(queue, encode("doom"));

        await waitFor(() => got.length === 3, 5_000, "three deliveries");
        await Bun.sleep(QUIET_MS);
        expect(got.map((d) => d.deliveryCount)).toEqual([1, 2, 3]);
        // The dropped job does not block the queue.
        await bus.enqueue(queue, encode("next job"));
        await waitFor(() => got.length === 4, 5_000, "the next job");
        expect(got[3]?.text).toBe("next job");
      });

      test("a job whose ack wait runs out on every delivery is dropped after maxDeliver", async () => {
        const queue = unique("max-wait");
        const got: Delivery[] = [];
        await bus.consume(queue, async (job) => void got.push(record(job)), {
          maxDeliver: 2,
          ackWaitMs: 200,
        });

        await bus.enqueue(queue, encode("ignored"));

        await waitFor(() => got.length === 2, 5_000, "two deliveries");
        await Bun.sleep(QUIET_MS);
        expect(got.map((d) => d.deliveryCount)).toEqual([1, 2]);
      });

      test("a terminated job is never delivered again", async () => {
        const queue = unique("term");
        const got: Delivery[] = [];
        await bus.consume(
          queue,
          async (job) => {
            got.push(record(job));
            await job.term();
          },
          { ackWaitMs: 200 },
        );

        await bus.enqueue(queue, encode("poison"));

        await waitFor(() => got.length === 1, 5_000, "the job");
        await Bun.sleep(QUIET_MS);
        expect(got).toHaveLength(1);
      });

      test("a handler that throws gets the job again", async () => {
        const queue = unique("throw");
        const got: Delivery[] = [];
        await bus.consume(queue, async (job) => {
          got.push(record(job));
          if (job.deliveryCount === 1) throw new Error("upstream down");
          await job.ack();
        });

        await bus.enqueue(queue, encode("fragile"));

        await waitFor(() => got.length === 2, 5_000, "the redelivery");
        expect(got.map((d) => d.deliveryCount)).toEqual([1, 2]);
      });

      test("consumers of one queue share its jobs, each job going to one of them", async () => {
        const queue = unique("share");
        const byConsumer: string[][] = [[], []];
        for (const received of byConsumer) {
          await bus.consume(queue, async (job) => {
            received.push(decode(job.data));
            await job.ack();
          });
        }

        for (let i = 0; i < 100; i++) await bus.enqueue(queue, encode(`job-${i}`));

        const total = () => byConsumer[0]!.length + byConsumer[1]!.length;
        await waitFor(() => total() >= 100, 10_000, "100 jobs");
        expect(new Set(byConsumer.flat()).size).toBe(100);
        expect(total()).toBe(100);
        expect(byConsumer[0]!.length).toBeGreaterThan(0);
        expect(byConsumer[1]!.length).toBeGreaterThan(0);
      });

      test("a second enqueue with the same msgId is a duplicate and is delivered once", async () => {
        const queue = unique("dedup");
        expect(await bus.enqueue(queue, encode("first"), { msgId: "m1" })).toEqual({ duplicate: false });
        expect(await bus.enqueue(queue, encode("again"), { msgId: "m1" })).toEqual({ duplicate: true });
        expect(await bus.enqueue(queue, encode("second"), { msgId: "m2" })).toEqual({ duplicate: false });
        // De-duplication is per queue: the same id elsewhere is another job.
        expect(await bus.enqueue(unique("dedup-other"), encode("x"), { msgId: "m1" })).toEqual({
          duplicate: false,
        });

        const got: Delivery[] = [];
        await bus.consume(queue, async (job) => {
          got.push(record(job));
          await job.ack();
        });

        // Jobs come in order, so a duplicate of m1 would arrive before m2.
        await waitFor(() => got.some((d) => d.msgId === "m2"), 5_000, "m2");
        expect(got.map((d) => [d.text, d.msgId])).toEqual([
          ["first", "m1"],
          ["second", "m2"],
        ]);
      });

      test("no more than `concurrency` jobs are in flight at once", async () => {
        const queue = unique("concurrency");
        for (let i = 0; i < 12; i++) await bus.enqueue(queue, encode(`job-${i}`));
        let inFlight = 0;
        let maxInFlight = 0;
        let done = 0;
        await bus.consume(
          queue,
          async (job) => {
            inFlight++;
            maxInFlight = Math.max(maxInFlight, inFlight);
            await Bun.sleep(20); // the work itself, so that handlers overlap
            inFlight--;
            await job.ack();
            done++;
          },
          { concurrency: 3 },
        );

        await waitFor(() => done === 12, 5_000, "12 jobs");
        expect(maxInFlight).toBe(3);
      });

      test("jobs enqueued before any consumer exists are delivered", async () => {
        const queue = unique("early");
        for (const text of ["a", "b", "c"]) await bus.enqueue(queue, encode(text));

        const got: string[] = [];
        await bus.consume(queue, async (job) => {
          got.push(decode(job.data));
          await job.ack();
        });

        await waitFor(() => got.length === 3, 5_000, "3 jobs");
        expect(got).toEqual(["a", "b", "c"]);
      });

      test("jobs not acked before a restart are delivered after it, acked ones are not", async () => {
        if (!under.reopen) return; // this bus keeps nothing across a restart
        const queue = unique("durable");
        const before: Delivery[] = [];
        const consumer = await bus.consume(
          queue,
          async (job) => {
            before.push(record(job));
            if (decode(job.data) === "acked") await job.ack();
            // "in-flight" is left unsettled, as by a process that dies while handling it.
          },
          { ackWaitMs: ACK_WAIT_MS },
        );
        await bus.enqueue(queue, encode("acked"));
        await bus.enqueue(queue, encode("in-flight"));
        await waitFor(() => before.length === 2, 5_000, "both jobs before the restart");
        await consumer.stop();
        await bus.enqueue(queue, encode("waiting"));
        await bus.enqueue(queue, encode("with-id"), { msgId: "once" });
        await bus.close();

        const reopened = await under.reopen();
        // The de-duplication ids survive the restart too.
        expect(await reopened.enqueue(queue, encode("with-id again"), { msgId: "once" })).toEqual({
          duplicate: true,
        });
        const after: Delivery[] = [];
        await reopened.consume(
          queue,
          async (job) => {
            after.push(record(job));
            await job.ack();
          },
          { ackWaitMs: ACK_WAIT_MS },
        );

        await waitFor(() => after.length === 3, 5_000, "the three unacked jobs");
        expect(after.map((d) => d.text).sort()).toEqual(["in-flight", "waiting", "with-id"]);
        expect(after.find((d) => d.text === "in-flight")?.deliveryCount).toBe(2);
        expect(after.find((d) => d.text === "with-id")?.msgId).toBe("once");
      });

      test("close() waits for the handler in flight", async () => {
        const queue = unique("close");
        const events: string[] = [];
        const gate = Promise.withResolvers<void>();
        await bus.consume(queue, async (job) => {
          events.push("started");
          await gate.promise;
          await job.ack();
          events.push("handler done");
        });
        await bus.enqueue(queue, encode("long"));
        await waitFor(() => events.includes("started"), 5_000, "the handler to start");

        const closing = bus.close().then(() => events.push("closed"));
        await Bun.sleep(100); // a close that does not wait would be done by now
        expect(events).toEqual(["started"]);
        gate.resolve();
        await closing;

        expect(events).toEqual(["started", "handler done", "closed"]);
      });
    });
  });
}
