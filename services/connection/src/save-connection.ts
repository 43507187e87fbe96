import { create, type DescMessage, type Message, type MessageInitShape, toBinary } from "@bufbuild/protobuf";
import { queues, subjects } from "@junction/bus";
import { ConnectionCreatedSchema, ConnectionReauthorizedSchema } from "@junction/contracts/events/v1/events_pb";
import { ScriptJobSchema } from "@junction/contracts/scripts/v1/scripts_service_pb";
import { newId } from "@junction/platform";
import type { ConnectionServiceContext } from "./context.ts";
import { type StoredCredentials, sealCredentials } from "./credentials.ts";
import { checkConnectionHosts } from "./outbound/connection-hosts.ts";
import type { ConnectionErrorRecord, ConnectionRecord, EnvironmentRecord, IntegrationRecord } from "./store/records.ts";

export interface SaveConnectionInput {
  env: EnvironmentRecord;
  integ: IntegrationRecord;
  connectionId: string;
  credentials: StoredCredentials | null;
  /** Shallow-merged into an existing connection's. */
  connectionConfig: Record<string, unknown>;
  /** Used for a new connection only; an existing connection keeps its metadata. */
  metadata: Record<string, unknown>;
  /** Replaces an existing connection's end user when not null. */
  endUser: Record<string, unknown> | null;
  /** Replaces an existing connection's tags when not empty. */
  tags?: Record<string, string>;
  /** Replaces an existing connection's webhook URL override when given (non-empty). */
  webhookUrlOverride?: string;
  /** Works out the errors to keep (from [] for a new connection): a re-authorization clears refresh failures. */
  reviseErrors?: (errors: ConnectionErrorRecord[]) => ConnectionErrorRecord[];
}

/**
 * Creates a connection, or re-authorizes the one with the same id (keeping its internal id, metadata
 * and creation time), then announces it: post-connection-creation for a new connection only,
 * re-authorized otherwise (spec: Events 3). Shared by the import API and the OAuth callback.
 */
export async function saveConnection(
  ctx: ConnectionServiceContext,
  input: SaveConnectionInput,
): Promise<{ created: boolean; connection: ConnectionRecord }> {
  const { integ, connectionId } = input;
  const now = ctx.clock.now();
  checkConnectionHosts(ctx, integ, ctx.providers.get(integ.provider), input.connectionConfig);
  const result = await ctx.store.upsertConnection(newConnectionRecord(ctx, input, now));
  const connection = result.created ? result.connection : await reviseErrors(ctx, input, result.connection, now);
  await announceConnection(ctx, input, connection, result.created, now);
  ctx.logger.info(result.created ? "connection created" : "connection re-authorized", {
    integration: integ.uniqueKey,
    connectionId,
  });
  return { created: result.created, connection };
}

/** The connection as it is created; an existing one keeps its id, metadata and creation time. */
function newConnectionRecord(ctx: ConnectionServiceContext, input: SaveConnectionInput, now: number): ConnectionRecord {
  const { env, integ, connectionId } = input;
  return {
    id: newId("conn", now),
    environmentId: env.id,
    providerConfigKey: integ.uniqueKey,
    connectionId,
    provider: integ.provider,
    credentialsEnc: input.credentials
      ? sealCredentials(
          ctx.encryptor,
          { environmentId: env.id, providerConfigKey: integ.uniqueKey, connectionId },
          input.credentials,
        )
      : null,
    credentialsExpiresAt: input.credentials?.expiresAt ?? null,
    connectionConfig: input.connectionConfig,
    metadata: input.metadata,
    endUser: input.endUser,
    errors: input.reviseErrors ? input.reviseErrors([]) : [],
    tags: input.tags ?? {},
    ...(input.webhookUrlOverride ? { webhookUrlOverride: input.webhookUrlOverride } : {}),
    createdAt: now,
    updatedAt: now,
  };
}

/** A re-authorized connection's errors as `reviseErrors` makes them, written only when they change. */
async function reviseErrors(
  ctx: ConnectionServiceContext,
  input: SaveConnectionInput,
  connection: ConnectionRecord,
  now: number,
): Promise<ConnectionRecord> {
  if (!input.reviseErrors) return connection;
  const errors = input.reviseErrors(connection.errors);
  if (JSON.stringify(errors) === JSON.stringify(connection.errors)) return connection;
  const { env, integ, connectionId } = input;
  return (await ctx.store.patchConnection(env.id, integ.uniqueKey, connectionId, { errors }, now)) ?? connection;
}

/** Publishes created or re-authorized; a new connection also gets its post-connection-creation job. */
async function announceConnection(
  ctx: ConnectionServiceContext,
  input: SaveConnectionInput,
  connection: ConnectionRecord,
  created: boolean,
  now: number,
): Promise<void> {
  const { env, integ, connectionId } = input;
  const event = {
    environmentId: env.id,
    providerConfigKey: integ.uniqueKey,
    connectionId,
    provider: integ.provider,
    atMs: BigInt(now),
  };
  if (!created) {
    await publish(ctx, subjects.connectionReauthorized(integ.uniqueKey), ConnectionReauthorizedSchema, event);
    return;
  }
  if (ctx.scripts) {
    // Pub/sub is at most once: lifecycle scripts get a durable job, de-duplicated on the new
    // record's internal id (the msgId format is documented with ScriptJob in scripts_service.proto).
    const job = create(ScriptJobSchema, { job: { case: "connectionCreated", value: event } });
    await ctx.bus.enqueue(queues.scriptRuns, toBinary(ScriptJobSchema, job), {
      msgId: `post-connection-creation:${connection.id}`,
    });
  }
  await publish(ctx, subjects.connectionCreated(integ.uniqueKey), ConnectionCreatedSchema, event);
}

async function publish<D extends DescMessage>(
  ctx: ConnectionServiceContext,
  subject: string,
  schema: D,
  init: MessageInitShape<D>,
): Promise<void> {
  await ctx.bus.publish(subject, toBinary(schema, create(schema, init) as Message & never));
}
