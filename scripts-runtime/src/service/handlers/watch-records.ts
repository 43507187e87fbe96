import type { MessageInitShape } from "@bufbuild/protobuf";
import { Code, ConnectError, type HandlerContext, type ServiceImpl } from "@connectrpc/connect";
import type {
  ScriptsService,
  WatchRecordsRequest,
  WatchRecordsResponseSchema,
} from "@junction/contracts/scripts/v1/scripts_service_pb";
import { JunctionError, toConnectError } from "@junction/platform";
import { followRecords } from "../../records/follow-records.ts";
import type { ScriptsServiceContext } from "../context.ts";
import { cursorOf, modelScope } from "./record-scope.ts";

type Handlers = Pick<ServiceImpl<typeof ScriptsService>, "watchRecords">;
type Message = MessageInitShape<typeof WatchRecordsResponseSchema>;

/** Records read per store query of a feed. */
const FEED_PAGE = 500;

/**
 * WatchRecords: the change feed of GET /records/changes. The request is checked and the feed's place
 * taken before the first message (`opened`), so that the gateway answers a refusal as an error status
 * rather than as a stream that ends.
 */
export function watchRecordsHandler(ctx: ScriptsServiceContext): Handlers {
  return {
    async *watchRecords(req: WatchRecordsRequest, context: HandlerContext): AsyncGenerator<Message> {
      const opened = await open(ctx, req);
      // The place is given back when the call is cancelled, even if the generator is never resumed.
      context.signal.addEventListener("abort", opened.slot.release, { once: true });
      try {
        yield { event: { case: "opened", value: { heartbeatMs: BigInt(ctx.config.recordFeedHeartbeatMs) } } };
        const signal = AbortSignal.any([context.signal, opened.slot.signal]);
        const options = {
          store: ctx.records,
          changes: ctx.recordChanges,
          clock: ctx.clock,
          heartbeatMs: ctx.config.recordFeedHeartbeatMs,
          pollMs: ctx.config.recordFeedPollMs,
          pageSize: FEED_PAGE,
        };
        for await (const e of followRecords(options, opened.scope, opened.secret, opened.afterSeq, signal)) {
          yield e.kind === "record"
            ? { event: { case: "record", value: { cursor: e.cursor, recordJson: e.json } } }
            : { event: { case: "heartbeat", value: { atMs: BigInt(e.at) } } };
        }
      } finally {
        context.signal.removeEventListener("abort", opened.slot.release);
        opened.slot.release();
      }
    },
  };
}

/** Checks the request and takes a place; the domain errors cross the wire with their codes. */
async function open(ctx: ScriptsServiceContext, req: WatchRecordsRequest) {
  try {
    const scope = await modelScope(ctx, req);
    const secret = await ctx.records.secret(scope);
    const afterSeq = req.cursor ? cursorOf(secret, req.cursor, "cursor") : 0;
    return { scope, secret, afterSeq, slot: ctx.recordFeeds.acquire(scope.environmentId) };
  } catch (err) {
    // A streaming handler's errors pass no interceptor: the error boundary's mapping is done here.
    if (err instanceof JunctionError) throw toConnectError(err);
    ctx.logger.error("change feed not opened", { cause: err });
    throw new ConnectError("internal error", Code.Internal);
  }
}
