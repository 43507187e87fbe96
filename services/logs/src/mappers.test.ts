import { describe, expect, test } from "bun:test";
import type { Operation } from "@junction/platform/operations/operation";
import { fromProto, toProto } from "./mappers.ts";

const one: Operation = {
  id: "op_1",
  kind: "proxy_call",
  status: "failed",
  startedAtMs: 1_700_000_000_000,
  durationMs: 12,
  environmentId: "env_1",
  integration: "cal",
  connection: "c1",
  endUser: "",
  tags: [],
  title: "GET /calendars → 503",
  messages: [{ atMs: 1_700_000_000_012, level: "warn", text: "upstream answered 503", fields: { status: 503 } }],
};

describe("operations on the wire (the logs.operations queue's batches)", () => {
  test("a total of many calls keeps its count and latency; an operation of one call has none", () => {
    const total: Operation = {
      ...one,
      id: "op_2",
      status: "success",
      durationMs: 60_000,
      title: "GET ×1000 → 200",
      messages: [],
      totals: { count: 1000, latencyMinMs: 0.5, latencyMaxMs: 90, latencySumMs: 4321.5 },
    };
    expect(fromProto(toProto(total, true))).toEqual(total);
    expect(fromProto(toProto(one, true))).toEqual(one);
    expect(toProto(one, false).totals).toBeUndefined();
  });
});
