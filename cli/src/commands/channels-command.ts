import { EXIT, flag, parseArgs, positionals, printJson, printList, query, withSubcommands } from "./command-kit.ts";

interface Channel {
  id: string;
  kind: string;
  provider_config_key: string;
  connection_id: string;
  state: string;
  expiration: string | null;
}

interface StopAll {
  integration: string;
  stopped: string[];
  gone: string[];
  failed: { channel_id: string; connection_id: string; code: string; message: string }[];
}

/** `junction channels ...`: the notification channels (watches, subscriptions) Junction knows. */
export const channelsCommand = withSubcommands("channels", "notification channels (watches, subscriptions)", {
  list: {
    usage: "[--integration <key>] [--connection <id>] [--state <state>] [--expiring-within <duration>]",
    summary: "channels: id, kind, integration/connection, state, expiration",
    async run(ctx, args) {
      const parsed = parseArgs(args, ["integration", "connection", "state", "expiring-within"]);
      positionals(parsed, []);
      const q = query({
        integration: flag(parsed, "integration"),
        connection: flag(parsed, "connection"),
        state: flag(parsed, "state"),
        expiring_within: flag(parsed, "expiring-within"),
      });
      const res = await ctx.api.call<{ data: Channel[] }>("GET", `/channels${q}`);
      printList(
        ctx,
        res.data,
        (c) => [c.id, c.kind, `${c.provider_config_key}/${c.connection_id}`, c.state, c.expiration],
        "no channels",
      );
      return EXIT.ok;
    },
  },
  "stop-all": {
    usage: "<integration>",
    summary: "stops every channel of an integration at the upstream; exit 1 if any could not be stopped",
    async run(ctx, args) {
      const [integration] = positionals(parseArgs(args), ["integration"]);
      const res = await ctx.api.call<{ data: StopAll }>("POST", "/channels/stop-all", { integration });
      const { stopped, gone, failed } = res.data;
      if (ctx.json) printJson(ctx.io, res.data);
      else {
        ctx.io.out(
          `stopped ${stopped.length} channel${stopped.length === 1 ? "" : "s"} of ${integration} (${gone.length} already gone at the upstream)`,
        );
        for (const f of failed)
          ctx.io.err(`  not stopped: ${f.channel_id} (${f.connection_id}): ${f.message} (${f.code})`);
      }
      return failed.length === 0 ? EXIT.ok : EXIT.refused;
    },
  },
});
