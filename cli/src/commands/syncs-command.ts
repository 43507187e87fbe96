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

interface SyncStatus {
  name: string;
  connection_id: string;
  status: string;
  frequency: string;
  finishedAt?: string | null;
  nextScheduledSyncAt?: string | null;
  latest_run_id?: string | null;
}

/** `junction syncs ...`: run syncs now and see how they are doing. */
export const syncsCommand = withSubcommands("syncs", "the syncs of a connection", {
  trigger: {
    usage: "<integration> [sync...] [--connection <id>] [--full-resync]",
    summary: "runs syncs now: the ones named (else every one), of one connection (else of every connection)",
    async run(ctx, args) {
      const parsed = parseArgs(args, ["connection"], ["full-resync"]);
      const [integration, ...syncs] = parsed.positional;
      const connection = flag(parsed, "connection");
      if (!integration) throw new UsageError("expected <integration> [sync...]");
      const res = await ctx.api.call<{ runs: { id: string; sync: string }[]; queued: { sync: string }[] }>(
        "POST",
        "/sync/trigger",
        {
          provider_config_key: integration,
          ...(connection ? { connection_id: connection } : {}),
          syncs,
          ...(parsed.booleans.has("full-resync") ? { opts: { reset: true } } : {}),
        },
      );
      if (ctx.json) printJson(ctx.io, res);
      else {
        for (const r of res.runs) ctx.io.out(`started ${r.sync}: run ${r.id}`);
        for (const q of res.queued) ctx.io.out(`queued ${q.sync}: a run of it is under way`);
        if (res.runs.length + res.queued.length === 0) ctx.io.out("no syncs to run");
      }
      return EXIT.ok;
    },
  },
  status: {
    usage: "<integration> [--syncs <a,b> ] [--connection <id>]",
    summary: "each sync's state, frequency, last finish, next run and latest run id (every sync unless --syncs)",
    async run(ctx, args) {
      const parsed = parseArgs(args, ["syncs", "connection"]);
      const [integration] = positionals(parsed, ["integration"]);
      const q = query({
        provider_config_key: integration,
        syncs: flag(parsed, "syncs") ?? "*",
        connection_id: flag(parsed, "connection"),
      });
      const res = await ctx.api.call<{ syncs: SyncStatus[] }>("GET", `/sync/status${q}`);
      printList(
        ctx,
        res.syncs,
        (s) => [
          s.name,
          s.connection_id,
          s.status,
          `every ${s.frequency}`,
          s.finishedAt,
          s.nextScheduledSyncAt,
          s.latest_run_id,
        ],
        "no syncs",
      );
      return EXIT.ok;
    },
  },
});
