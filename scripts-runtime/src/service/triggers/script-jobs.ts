import { createHash } from "node:crypto";
import { create, type MessageInitShape, toBinary } from "@bufbuild/protobuf";
import { type Bus, queues } from "@junction/bus";
import type { ConnectionCreated } from "@junction/contracts/events/v1/events_pb";
import { ScriptJobSchema } from "@junction/contracts/scripts/v1/scripts_service_pb";

/**
 * The bus msgId of the job a new connection makes (the connection service enqueues it). The
 * connection's internal id (conn_...) is new for every creation, so a re-authorization (same record)
 * can never make one, and a connection deleted and created again makes a new one.
 */
export const connectionCreatedMsgId = (internalConnectionId: string) =>
  `post-connection-creation:${internalConnectionId}`;

/**
 * The msgId of a job made while processing another: the same each time the parent is processed, so
 * that a parent processed twice enqueues its children once. Hashed: ids and names may hold characters
 * a NATS header may not.
 */
export function childMsgId(kind: string, parent: string, ...parts: string[]): string {
  return `${kind}:${createHash("sha256")
    .update(JSON.stringify([parent, ...parts]))
    .digest("hex")
    .slice(0, 40)}`;
}

/** The msgId of a ConnectionCreated job that came without one. */
export function derivedCreatedMsgId(event: ConnectionCreated): string {
  return `post-connection-creation:${event.environmentId}:${event.providerConfigKey}:${event.connectionId}:${event.atMs}`;
}

/** Enqueues a job on `scripts.runs`, durably, de-duplicated by `msgId`. */
export async function enqueueScriptJob(
  bus: Bus,
  job: MessageInitShape<typeof ScriptJobSchema>,
  msgId: string,
): Promise<void> {
  await bus.enqueue(queues.scriptRuns, toBinary(ScriptJobSchema, create(ScriptJobSchema, job)), { msgId });
}
