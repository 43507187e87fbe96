import { ApiError } from "./api-client.ts";
import {
  EXIT,
  flag,
  parseArgs,
  positionals,
  printJson,
  printList,
  query,
  UsageError,
  withSubcommands,
} from "./command-kit.ts";
import { Progress } from "./progress.ts";

interface WebhookMessage {
  id: string;
  type: string;
  provider_config_key: string | null;
  connection_id: string | null;
  status: string;
  attempt_count: number;
  last_error: string | null;
  created_at: string | null;
}

const LIST_FLAGS = ["integration", "connection", "status", "type", "limit"];
const listQuery = (parsed: ReturnType<typeof parseArgs>, cursor?: string) =>
  query({
    provider_config_key: flag(parsed, "integration"),
    connection_id: flag(parsed, "connection"),
    status: flag(parsed, "status"),
    type: flag(parsed, "type"),
    limit: flag(parsed, "limit"),
    cursor,
  });

/** `junction deliveries ...`: the webhook messages sent to your app, their attempts, replays. */
export const deliveriesCommand = withSubcommands("deliveries", "webhook messages sent to your app (deliveries)", {
  list: {
    usage:
      "[--integration <key>] [--connection <id>] [--status pending|succeeded|failed|exhausted] [--type <type>] [--limit <n>]",
    summary: "messages, newest first: id, type, status, attempts, integration/connection, last error",
    async run(ctx, args) {
      const parsed = parseArgs(args, LIST_FLAGS);
      positionals(parsed, []);
      const res = await ctx.api.call<{ data: WebhookMessage[] }>("GET", `/webhook-messages${listQuery(parsed)}`);
      printList(
        ctx,
        res.data,
        (m) => [
          m.id,
          m.type,
          m.status,
          `${m.attempt_count} attempt${m.attempt_count === 1 ? "" : "s"}`,
          m.provider_config_key ? `${m.provider_config_key}/${m.connection_id ?? "-"}` : null,
          m.last_error,
        ],
        "no deliveries",
      );
      return EXIT.ok;
    },
  },
  show: {
    usage: "<message-id>",
    summary: "one message with its body and every attempt, as JSON",
    async run(ctx, args) {
      const [id] = positionals(parseArgs(args), ["message-id"]);
      printJson(ctx.io, (await ctx.api.call("GET", `/webhook-messages/${encodeURIComponent(id as string)}`)).data);
      return EXIT.ok;
    },
  },
  replay: {
    usage: "<message-id>... | --status failed|exhausted [--integration <key>] [--connection <id>] [--type <type>]",
    summary: "sends messages again: the ones named, or every one the filters match; progress on stderr",
    async run(ctx, args) {
      const parsed = parseArgs(
        args,
        LIST_FLAGS.filter((f) => f !== "limit"),
      );
      let ids = parsed.positional;
      if (ids.length > 0 && parsed.values.size > 0) throw new UsageError("give message ids or filters, not both");
      if (ids.length === 0) {
        if (!flag(parsed, "status")) throw new UsageError("give message ids, or --status to replay every match");
        ids = await matchingIds(ctx, parsed);
        if (ids.length === 0) {
          ctx.io.err("no messages match");
          return EXIT.ok;
        }
      }
      const progress = new Progress(ctx.io, ids.length, "replaying");
      for (const id of ids) {
        try {
          await ctx.api.call("POST", `/webhook-messages/${encodeURIComponent(id)}/replay`);
          ctx.io.out(`replayed ${id}`);
          progress.ok(id);
        } catch (err) {
          if (!(err instanceof ApiError) || err.status === undefined) throw err;
          progress.fail(`${id}: ${err.message}${err.body ? ` (${err.body.code})` : ""}`);
        }
      }
      return progress.finish() ? EXIT.ok : EXIT.refused;
    },
  },
  "replay-failed": {
    usage: "[--since <ISO date or time>]",
    summary: "replays every failed or exhausted message (all, or since a date), in one request",
    async run(ctx, args) {
      const parsed = parseArgs(args, ["since"]);
      positionals(parsed, []);
      const res = await ctx.api.call<{ data: { replayed: number } }>("POST", "/webhook-messages/replay-failed", {
        since: sinceFlag(flag(parsed, "since")),
      });
      if (ctx.json) printJson(ctx.io, res.data);
      else ctx.io.out(`replayed ${res.data.replayed} message${res.data.replayed === 1 ? "" : "s"}`);
      return EXIT.ok;
    },
  },
});

/** Every message id the list filters match, following the cursor. */
async function matchingIds(
  ctx: Parameters<typeof deliveriesCommand.run>[0],
  parsed: ReturnType<typeof parseArgs>,
): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await ctx.api.call<{ data: WebhookMessage[]; next_cursor: string | null }>(
      "GET",
      `/webhook-messages${listQuery(parsed, cursor)}`,
    );
    ids.push(...page.data.map((m) => m.id));
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  return ids;
}

/**
 * The API takes an ISO time with an offset or Unix milliseconds: no flag means every failed message (0), a date
 * alone (`2026-01-01`) means its start in UTC, and anything else must be a time the API would take.
 */
export function sinceFlag(value: string | undefined): string | number {
  if (value === undefined) return 0;
  if (/^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(Date.parse(`${value}T00:00:00Z`))) return `${value}T00:00:00Z`;
  if (/^\d{4}-\d{2}-\d{2}T/.test(value) && !Number.isNaN(Date.parse(value))) return new Date(value).toISOString();
  throw new UsageError(
    `--since must be a date (2026-01-01) or a time with an offset (2026-01-01T09:00:00Z), not "${value}"`,
  );
}
