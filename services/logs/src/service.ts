import type { ServiceImpl } from "@connectrpc/connect";
import type { LogsService } from "@junction/contracts/logs/v1/logs_service_pb";
import { type Clock, type Encryptor, notFound } from "@junction/platform";
import { type LogsConfig, retentionMs } from "./config.ts";
import { checkListRequest, writeCursor } from "./list-request.ts";
import { toProto } from "./mappers.ts";
import type { OperationStore } from "./store/operation-store.ts";

export interface LogsServiceDeps {
  store: OperationStore;
  config: LogsConfig;
  clock: Clock;
  /** Signs the cursors (a keyed digest), so that one cannot be forged. */
  encryptor: Encryptor;
}

/** LogsService: pages of the operations log and one operation with its messages. */
export function createLogsService(deps: LogsServiceDeps): ServiceImpl<typeof LogsService> {
  return {
    async listOperations(req) {
      const checked = checkListRequest(req, {
        retentionMs: retentionMs(deps.config),
        nowMs: deps.clock.now(),
        encryptor: deps.encryptor,
      });
      // One more than asked tells whether another page follows.
      const found = await deps.store.list(checked.filter, checked.limit + 1, checked.after);
      const page = found.slice(0, checked.limit);
      const last = page.at(-1);
      const more = found.length > checked.limit && last !== undefined;
      return {
        operations: page.map((o) => toProto(o, false)),
        nextCursor: more ? writeCursor(last, checked.filterKey, deps.encryptor) : "",
      };
    },
    async getOperation(req) {
      const op = req.id ? await deps.store.get(req.id) : undefined;
      if (!op) throw notFound("unknown_operation", "no operation has this id (it may be past the log's retention)");
      return { operation: toProto(op, true) };
    },
  };
}
