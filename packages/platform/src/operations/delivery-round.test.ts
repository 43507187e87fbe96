import { describe, expect, test } from "bun:test";
import { ManualClock } from "../clock.ts";
import {
  type DeliveryRoundFacts,
  deliveryRoundOperation,
  encodeDeliveryRound,
  operationFromJson,
  operationsFromJson,
} from "./delivery-round.ts";
import type { Operation } from "./operation.ts";
import { OperationRecorder } from "./operation-recorder.ts";

const at = 1_700_000_000_000;

function facts(over: Partial<DeliveryRoundFacts> = {}): DeliveryRoundFacts {
  return {
    startedAtMs: at,
    environmentId: "env_1",
    integration: "cal",
    connection: "user1",
    messageType: "forward",
    messageId: "msg_1",
    notificationId: "ntf_1",
    outcome: "succeeded",
    nextAttemptAt: null,
    lastError: null,
    updatedAt: at + 7,
    attempts: [
      {
        at: at + 5,
        number: 1,
        endpointId: "whe_1",
        url: "https://hooks.example.com/in?token=s3cret",
        statusCode: 200,
        latencyMs: 4,
        error: null,
      },
    ],
    ...over,
  };
}

const rounds: Record<string, DeliveryRoundFacts> = {
  succeeded: facts(),
  "pending, a next attempt": facts({
    outcome: "pending",
    nextAttemptAt: at + 60_000,
    attempts: [
      { ...(facts().attempts[0] as DeliveryRoundFacts["attempts"][number]), statusCode: 0, error: "timed out" },
    ],
  }),
  "failed before any attempt": facts({
    outcome: "failed",
    attempts: [],
    lastError: "no enabled endpoint",
    notificationId: "",
  }),
  "two attempts": facts({
    attempts: [
      {
        at: at + 1,
        number: 2,
        endpointId: "whe_1",
        url: "http://a",
        statusCode: 503,
        latencyMs: 9,
        error: "answered 503",
      },
      { at: at + 2, number: 2, endpointId: "whe_2", url: "http://b", statusCode: 200, latencyMs: 1, error: null },
    ],
  }),
};

describe("a delivery round in the operations log", () => {
  test("renders its title and messages, never the endpoint's query", () => {
    const op = deliveryRoundOperation("op_1", 7, facts());
    expect(op).toMatchObject({
      kind: "webhook_delivery",
      status: "success",
      title: "forward message msg_1 of ntf_1: succeeded",
      integration: "cal",
      connection: "user1",
      durationMs: 7,
    });
    expect(op.messages).toEqual([
      {
        atMs: at + 5,
        level: "info",
        text: "attempt 1 to https://hooks.example.com/in?…: answered 200",
        fields: { messageId: "msg_1", endpointId: "whe_1", statusCode: 200, latencyMs: 4 },
      },
    ]);
    expect(JSON.stringify(op)).not.toContain("s3cret");
    const pending = deliveryRoundOperation("op_2", 0, rounds["pending, a next attempt"] as DeliveryRoundFacts);
    expect(pending.status).toBe("running");
    expect(pending.messages.map((m) => m.text)).toEqual([
      "attempt 1 to https://hooks.example.com/in?…: timed out",
      `next attempt at ${new Date(at + 60_000).toISOString()}`,
    ]);
    const failed = deliveryRoundOperation("op_3", 0, rounds["failed before any attempt"] as DeliveryRoundFacts);
    expect(failed).toMatchObject({ status: "failed", title: "forward message msg_1: failed" });
    expect(failed.messages).toEqual([{ atMs: at + 7, level: "warn", text: "no enabled endpoint" }]);
  });

  for (const [name, round] of Object.entries(rounds)) {
    test(`crosses as text and is rendered the same: ${name}`, () => {
      const text = encodeDeliveryRound("op_9", 12, round);
      expect(text).not.toContain("message msg_1");
      expect(operationFromJson(JSON.parse(text))).toEqual(deliveryRoundOperation("op_9", 12, round));
    });
  }

  test("a recorder gives the same operation to a text sink and to an object sink", async () => {
    const got: { text: Operation[]; objects: Operation[] } = { text: [], objects: [] };
    for (const mode of ["text", "objects"] as const) {
      const rec = new OperationRecorder({ clock: new ManualClock(at + 30) });
      if (mode === "text") rec.attach({ encoded: async (json) => void got.text.push(...operationsFromJson(json)) });
      else rec.attach(async (batch) => void got.objects.push(...batch));
      for (const round of Object.values(rounds)) rec.recordDeliveryRound(round);
      rec.record({ kind: "sync_run", status: "success", startedAtMs: at, title: "sync" });
      await rec.flushed();
    }
    const withoutIds = (ops: Operation[]) =>
      ops.map(({ id, ...rest }) => {
        expect(id).toStartWith("op_");
        return rest;
      });
    expect(got.text).toHaveLength(5);
    expect(withoutIds(got.text)).toEqual(withoutIds(got.objects));
    expect(got.text[0]?.durationMs).toBe(30);
  });

  test("a text that is not a recorder's batch is refused, not stored half-read", () => {
    expect(() => operationsFromJson('{"a":1}')).toThrow("JSON array");
    expect(() => operationsFromJson('[["proxy_call", 1]]')).toThrow("unknown shape");
    expect(() => operationsFromJson("[42]")).toThrow("unknown shape");
    const cut = JSON.parse(encodeDeliveryRound("op_1", 1, facts())) as unknown[];
    expect(() => operationFromJson(cut.slice(0, -1))).toThrow("cut");
  });
  test("a delivery round counts against the recorder's bound as any operation does, and not at all when off", () => {
    const rec = new OperationRecorder({ clock: new ManualClock(at), maxBuffered: 2 });
    for (let i = 0; i < 5; i++) rec.recordDeliveryRound(facts());
    expect(rec.droppedTotal).toBe(3);
    const off = new OperationRecorder({ clock: new ManualClock(at), enabled: false, maxBuffered: 1 });
    for (let i = 0; i < 5; i++) off.recordDeliveryRound(facts());
    expect(off.droppedTotal).toBe(0);
  });
});
