import {
  EXIT,
  parseArgs,
  positionals,
  printJson,
  printList,
  requiredFlag,
  flag,
  withSubcommands,
} from "./command-kit.ts";

interface Integration {
  unique_key: string;
  provider: string;
  display_name?: string | null;
  webhook_url: string;
  created_at: string | null;
}

/** `junction integrations ...`: list, show, create and delete integrations. */
export const integrationsCommand = withSubcommands("integrations", "the integrations of this environment", {
  list: {
    usage: "",
    summary: "every integration: its key, provider, display name, creation time",
    async run(ctx, args) {
      positionals(parseArgs(args), []);
      const res = await ctx.api.call<{ data: Integration[] }>("GET", "/integrations");
      printList(ctx, res.data, (i) => [i.unique_key, i.provider, i.display_name, i.created_at], "no integrations");
      return EXIT.ok;
    },
  },
  show: {
    usage: "<key>",
    summary: "one integration, as JSON",
    async run(ctx, args) {
      const [key] = positionals(parseArgs(args), ["key"]);
      printJson(ctx.io, (await ctx.api.call("GET", `/integrations/${encodeURIComponent(key as string)}`)).data);
      return EXIT.ok;
    },
  },
  create: {
    usage: "<key> --provider <provider> [--display-name <name>]",
    summary: "creates an integration of a provider (see GET /providers); prints its webhook URL",
    async run(ctx, args) {
      const parsed = parseArgs(args, ["provider", "display-name"]);
      const [key] = positionals(parsed, ["key"]);
      const displayName = flag(parsed, "display-name");
      const body = {
        unique_key: key,
        provider: requiredFlag(parsed, "provider"),
        ...(displayName ? { display_name: displayName } : {}),
      };
      const res = await ctx.api.call<{ data: Integration }>("POST", "/integrations", body);
      if (ctx.json) printJson(ctx.io, res.data);
      else ctx.io.out(`created ${res.data.unique_key} (${res.data.provider}); webhook URL ${res.data.webhook_url}`);
      return EXIT.ok;
    },
  },
  delete: {
    usage: "<key>",
    summary: "deletes an integration and its connections",
    async run(ctx, args) {
      const [key] = positionals(parseArgs(args), ["key"]);
      await ctx.api.call("DELETE", `/integrations/${encodeURIComponent(key as string)}`);
      ctx.io.out(`deleted ${key}`);
      return EXIT.ok;
    },
  },
});
