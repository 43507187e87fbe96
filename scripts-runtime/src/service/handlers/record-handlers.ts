import type { ServiceImpl } from "@connectrpc/connect";
import type {
  ListRecordsRequest,
  PruneRecordsRequest,
  ScriptsService,
} from "@junction/contracts/scripts/v1/scripts_service_pb";
import { encodeCursor } from "../../records/record-cursor.ts";
import { RECORD_ACTIONS, type RecordAction } from "../../records/record-store.ts";
import { recordsJson } from "../../records/present-records.ts";
import type { ScriptsServiceContext } from "../context.ts";
import { errors } from "../errors.ts";
import { connectionScope, cursorOf, modelScope, required } from "./record-scope.ts";

type Handlers = Pick<ServiceImpl<typeof ScriptsService>, "listRecords" | "pruneRecords" | "listRecordModels">;

/** Records per page or per prune, at most (Nango's limit). */
export const MAX_RECORDS_LIMIT = 10_000;

/** ListRecords, PruneRecords, ListRecordModels: Nango's GET /records and PATCH /records/prune. */
export function recordHandlers(ctx: ScriptsServiceContext): Handlers {
  return {
    listRecords: (req) => listRecords(ctx, req),
    pruneRecords: (req) => pruneRecords(ctx, req),
    async listRecordModels(req) {
      const models = await ctx.records.models(await connectionScope(ctx, req));
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

/** ListRecords: a page of a model's records after the cursor, filtered by action, time or id. */
async function listRecords(ctx: ScriptsServiceContext, req: ListRecordsRequest) {
  const limit = limitOf(req.limit, 100);
  const scope = await modelScope(ctx, req);
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
  // A page of everything (since a time, at most) is read past; a page filtered by action or id is not.
  if (last && !actions.length && !req.ids.length) await ctx.records.retention.markRead(scope, last.seq);
  return {
    recordsJson: recordsJson(page.records, secret),
    nextCursor: page.hasMore && last && secret ? encodeCursor(secret, last.seq) : "",
  };
}

/** PruneRecords: the payloads of records up to the cursor removed, a page at a time. */
async function pruneRecords(ctx: ScriptsServiceContext, req: PruneRecordsRequest) {
  const limit = limitOf(req.limit, MAX_RECORDS_LIMIT);
  const scope = await modelScope(ctx, req);
  const until = cursorOf(await ctx.records.secret(scope), required(req.untilCursor, "until_cursor"), "until_cursor");
  await ctx.records.retention.markRead(scope, until);
  const pruned = await ctx.records.prune(scope, until, limit, ctx.clock.now());
  ctx.logger.info("records pruned", { integration: scope.providerConfigKey, model: scope.model, ...pruned });
  return { count: BigInt(pruned.count), hasMore: pruned.hasMore };
}

function limitOf(limit: number, fallback: number): number {
  const value = limit || fallback;
  if (value < 1 || value > MAX_RECORDS_LIMIT) {
    throw errors.invalidField("limit", `must be between 1 and ${MAX_RECORDS_LIMIT}`);
  }
  return value;
}
