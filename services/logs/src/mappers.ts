import { create } from "@bufbuild/protobuf";
import { type Operation as OperationMessageProto, OperationSchema } from "@junction/contracts/logs/v1/logs_service_pb";
import {
  isOperationKind,
  type Operation,
  type OperationMessage,
  OPERATION_STATUSES,
} from "@junction/platform/operations/operation";

/** An operation on the wire; without its messages (a list) or with them (a detail, a batch). */
export function toProto(op: Operation, withMessages: boolean): OperationMessageProto {
  return create(OperationSchema, {
    id: op.id,
    kind: op.kind,
    status: op.status,
    startedAtMs: BigInt(op.startedAtMs),
    durationMs: BigInt(Math.round(op.durationMs)),
    environmentId: op.environmentId,
    integration: op.integration,
    connection: op.connection,
    endUser: op.endUser,
    tags: op.tags,
    title: op.title,
    messageCount: op.messages.length,
    messages: withMessages
      ? op.messages.map((m) => ({
          atMs: BigInt(m.atMs),
          level: m.level,
          text: m.text,
          fieldsJson: m.fields ? JSON.stringify(m.fields) : "",
        }))
      : [],
    ...(op.totals
      ? {
          totals: {
            count: BigInt(op.totals.count),
            latencyMinMs: op.totals.latencyMinMs,
            latencyMaxMs: op.totals.latencyMaxMs,
            latencySumMs: op.totals.latencySumMs,
          },
        }
      : {}),
  });
}

/** An operation from a batch another process sent; undefined for one this version does not know. */
export function fromProto(p: OperationMessageProto): Operation | undefined {
  if (!isOperationKind(p.kind) || !(OPERATION_STATUSES as readonly string[]).includes(p.status)) return undefined;
  return {
    id: p.id,
    kind: p.kind,
    status: p.status as Operation["status"],
    startedAtMs: Number(p.startedAtMs),
    durationMs: Number(p.durationMs),
    environmentId: p.environmentId,
    integration: p.integration,
    connection: p.connection,
    endUser: p.endUser,
    tags: p.tags,
    title: p.title,
    messages: p.messages.map(
      (m): OperationMessage => ({
        atMs: Number(m.atMs),
        level: m.level as OperationMessage["level"],
        text: m.text,
        ...(m.fieldsJson ? { fields: JSON.parse(m.fieldsJson) as Record<string, unknown> } : {}),
      }),
    ),
    ...(p.totals
      ? {
          totals: {
            count: Number(p.totals.count),
            latencyMinMs: p.totals.latencyMinMs,
            latencyMaxMs: p.totals.latencyMaxMs,
            latencySumMs: p.totals.latencySumMs,
          },
        }
      : {}),
  };
}
