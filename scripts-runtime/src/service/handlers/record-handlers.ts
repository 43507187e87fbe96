import type { ServiceImpl } from "@connectrpc/connect";
import type { ScriptsService } from "@junction/contracts/scripts/v1/scripts_service_pb";
import { invalidArgument, JunctionError } from "@junction/platform";
import { decodeCursor, encodeCursor } from "../../records/record-cursor.ts";
import { RECORD_ACTIONS, type RecordAction, type RecordScope } from "../../records/record-store.ts";
import { recordsJson } from "../../records/present-records.ts";
import type { ScriptsServiceContext } from "../context.ts";
import { errors } from "../errors.ts";
import { BASE_VARIANT } from "../host/sync-run-data.ts";
import { callService } from "./call-service.ts";

type Handlers = Pick<ServiceImpl<typeof ScriptsService>, "listRecords" | "pruneRecords" | "listRecordModels">;

/** Records per page or per prune, at most (Nango's limit). */
export const MAX_RECORDS_LIMIT = 10_000;

/** ListRecords, PruneRecords, ListRecordModels: Nango's GET /records and PATCH /records/prune (issue 31, item 4). */
export function recordHandlers(ctx: ScriptsServiceContext): Handlers {
  const required = (value: string, path: string) => {
    if (!value) throw errors.invalidField(path, "is required");
    return value;
  };
  /** The connection must exist: Nango answers 400 unknown_connection otherwise. */
  const scopeOf = async (req: { providerConfigKey: string; connectionId: string }) => {
    const providerConfigKey = required(req.providerConfigKey, "provider_config_key");
    const connectionId = required(req.connectionId, "connection_id");
    try {
      await callService(ctx.clients().connection.getConnection({ providerConfigKey, connectionId }));
    } catch (err) {
      if (err instanceof JunctionError && err.code === "unknown_connection") {
        throw invalidArgument("unknown_connection", err.message);
      }
      throw err;
    }
    return { environmentId: await ctx.environment(), providerConfigKey, connectionId };
  };
  const limitOf = (limit: number, fallback: number) => {
    const value = limit || fallback;
    if (value < 1 || value > MAX_RECORDS_LIMIT) {
      throw errors.invalidField("limit", `must be between 1 and ${MAX_RECORDS_LIMIT}`);
    }
    return value;
  };
  const cursorOf = (secret: Uint8Array | null, cursor: string, path: string) => {
    const seq = decodeCursor(secret, cursor);
    if (seq === null) {
      throw invalidArgument("invalid_cursor", `${path} is not a cursor of this connection's model.`, [
        { path, message: "is not a cursor of this connection's model" },
      ]);
    }
    return seq;
  };

  return {
    async listRecords(req) {
      const limit = limitOf(req.limit, 100);
      const scope: RecordScope = {
        ...(await scopeOf(req)),
        model: required(req.model, "model"),
        variant: req.variant || BASE_VARIANT,
      };
      const secret = await ctx.records.secret(scope);
      const afterSeq = req.cursor ? cursorOf(secret, req.cursor, "cursor") : null;
      const actions = req.actions.map((a) => a.toUpperCase());
      const unknown = actions.find((a) => !(RECORD_ACTIONS as readonly string[]).includes(a));
      if (unknown !== undefined) throw errors.invalidField("filter", `"${unknown}" is not added, updated or deleted`);
      const page = await ctx.records.list(scope, {
        afterSeq,
        limit,
        actions: actions.length ? (actions as RecordAction[]) : null,
        modifiedAfter: req.modifiedAfterMs === undefined ? null : Number(req.modifiedAfterMs),
        ids: req.ids.length ? req.ids : null,
      });
      const last = page.records[page.records.length - 1];
      return {
        recordsJson: recordsJson(page.records, secret),
        nextCursor: page.hasMore && last && secret ? encodeCursor(secret, last.seq) : "",
      };
    },

    async pruneRecords(req) {
      const limit = limitOf(req.limit, MAX_RECORDS_LIMIT);
      const scope: RecordScope = {
        ...(await scopeOf(req)),
        model: required(req.model, "model"),
        variant: req.variant || BASE_VARIANT,
      };
      const until = cursorOf(
        await ctx.records.secret(scope),
        required(req.untilCursor, "until_cursor"),
        "until_cursor",
      );
      const pruned = await ctx.records.prune(scope, until, limit, ctx.clock.now());
      ctx.logger.info("records pruned", { integration: scope.providerConfigKey, model: scope.model, ...pruned });
      return { count: BigInt(pruned.count), hasMore: pruned.hasMore };
    },

    async listRecordModels(req) {
      const models = await ctx.records.models(await scopeOf(req));
      return {
        models: models.map((m) => ({
          model: m.model,
          variant: m.variant,
          count: BigInt(m.count),
          lastModifiedAtMs: BigInt(m.lastModifiedAt),
        })),
      };
    },
  };
}
