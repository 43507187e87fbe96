import {
  EXIT,
  flag,
  jsonArgument,
  parseArgs,
  positionals,
  printJson,
  printList,
  query,
  requiredFlag,
  withSubcommands,
} from "./command-kit.ts";

interface ConnectionItem {
  connection_id: string;
  provider_config_key: string;
  provider: string;
  created: string;
  end_user?: { id: string; email?: string | null } | null;
  errors: unknown[];
}

const connectionPath = (id: string, integration: string) =>
  `/connection/${encodeURIComponent(id)}${query({ provider_config_key: integration })}`;

/** `junction connections ...`: list, show and delete connections. */
export const connectionsCommand = withSubcommands("connections", "the connections of the integrations", {
  list: {
    usage: "[--integration <key>] [--search <text>] [--end-user <id>] [--limit <n>]",
    summary: "connections, newest first: id, integration, provider, end user, created",
    async run(ctx, args) {
      const parsed = parseArgs(args, ["integration", "search", "end-user", "limit"]);
      positionals(parsed, []);
      const q = query({
        integrationId: flag(parsed, "integration"),
        search: flag(parsed, "search"),
        endUserId: flag(parsed, "end-user"),
        limit: flag(parsed, "limit"),
      });
      const res = await ctx.api.call<{ connections: ConnectionItem[] }>("GET", `/connections${q}`);
      printList(
        ctx,
        res.connections,
        (c) => [c.connection_id, c.provider_config_key, c.provider, c.end_user?.email ?? c.end_user?.id, c.created],
        "no connections",
      );
      return EXIT.ok;
    },
  },
  show: {
    usage: "<connection-id> --integration <key>",
    summary: "one connection, as JSON (credentials as the deployment allows)",
    async run(ctx, args) {
      const parsed = parseArgs(args, ["integration"]);
      const [id] = positionals(parsed, ["connection-id"]);
      printJson(ctx.io, await ctx.api.call("GET", connectionPath(id as string, requiredFlag(parsed, "integration"))));
      return EXIT.ok;
    },
  },
  delete: {
    usage: "<connection-id> --integration <key>",
    summary: "deletes a connection (its channels are stopped)",
    async run(ctx, args) {
      const parsed = parseArgs(args, ["integration"]);
      const [id] = positionals(parsed, ["connection-id"]);
      const integration = requiredFlag(parsed, "integration");
      await ctx.api.call("DELETE", connectionPath(id as string, integration));
      ctx.io.out(`deleted ${integration}/${id}`);
      return EXIT.ok;
    },
  },
});

/** `junction metadata ...`: read and write a connection's metadata. */
export const metadataCommand = withSubcommands("metadata", "a connection's metadata (a JSON object)", {
  get: {
    usage: "<connection-id> --integration <key>",
    summary: "prints the metadata",
    async run(ctx, args) {
      const parsed = parseArgs(args, ["integration"]);
      const [id] = positionals(parsed, ["connection-id"]);
      const res = await ctx.api.call("GET", connectionPath(id as string, requiredFlag(parsed, "integration")));
      printJson(ctx.io, res.metadata ?? {});
      return EXIT.ok;
    },
  },
  set: {
    usage: "<connection-id> --integration <key> <json | @file>",
    summary: "replaces the metadata",
    run: (ctx, args) => writeMetadata(ctx, args, "POST"),
  },
  update: {
    usage: "<connection-id> --integration <key> <json | @file>",
    summary: "merges keys into the metadata",
    run: (ctx, args) => writeMetadata(ctx, args, "PATCH"),
  },
});

async function writeMetadata(ctx: Parameters<typeof metadataCommand.run>[0], args: string[], method: string) {
  const parsed = parseArgs(args, ["integration"]);
  const [id, json] = positionals(parsed, ["connection-id", "json"]);
  const metadata = await jsonArgument(json as string, "the metadata");
  const integration = requiredFlag(parsed, "integration");
  await ctx.api.call(method, "/connection/metadata", {
    connection_id: id,
    provider_config_key: integration,
    metadata,
  });
  ctx.io.out(`${method === "POST" ? "set" : "updated"} the metadata of ${integration}/${id}`);
  return EXIT.ok;
}

/** `junction connect`: a connect link for an end user (a connect session's URL). */
export const connectCommand = {
  name: "connect",
  help: `junction connect: a connect link, the URL to send an end user to so they connect an account

  junction connect <integration>... --end-user <id> [--email <email>] [--display-name <name>]
      creates a connect session limited to those integrations and prints its URL (its expiry on stderr)`,
  async run(ctx: Parameters<typeof metadataCommand.run>[0], args: string[]) {
    const parsed = parseArgs(args, ["end-user", "email", "display-name"]);
    if (parsed.positional.length === 0) positionals(parsed, ["integration"]);
    const email = flag(parsed, "email");
    const displayName = flag(parsed, "display-name");
    const res = await ctx.api.call<{ data: { token: string; expires_at: string | null; connect_link: string } }>(
      "POST",
      "/connect/sessions",
      {
        end_user: {
          id: requiredFlag(parsed, "end-user"),
          ...(email ? { email } : {}),
          ...(displayName ? { display_name: displayName } : {}),
        },
        allowed_integrations: parsed.positional,
      },
    );
    if (ctx.json) printJson(ctx.io, res.data);
    else {
      ctx.io.out(res.data.connect_link);
      if (res.data.expires_at) ctx.io.err(`expires at ${res.data.expires_at}`);
    }
    return EXIT.ok;
  },
};
