import { EXIT, flag, parseArgs, positionals, printJson, printList, withSubcommands } from "./command-kit.ts";

interface SecretKey {
  id: string;
  name: string;
  prefix: string;
  created_at: string | null;
  revoked_at: string | null;
}

/** `junction secret-keys ...`: the environment's secret keys. */
export const secretKeysCommand = withSubcommands("secret-keys", "the secret keys of the REST API", {
  list: {
    usage: "",
    summary: "keys: id, name, prefix, created, revoked",
    async run(ctx, args) {
      positionals(parseArgs(args), []);
      const res = await ctx.api.call<{ data: SecretKey[] }>("GET", "/secret-keys");
      printList(
        ctx,
        res.data,
        (k) => [k.id, k.name, `${k.prefix}…`, k.created_at, k.revoked_at ? `revoked ${k.revoked_at}` : "active"],
        "no secret keys",
      );
      return EXIT.ok;
    },
  },
  create: {
    usage: "[--name <name>]",
    summary: "creates a key and prints it: the only time it is shown",
    async run(ctx, args) {
      const parsed = parseArgs(args, ["name"]);
      positionals(parsed, []);
      const name = flag(parsed, "name");
      const res = await ctx.api.call<{ data: SecretKey & { secret_key: string } }>(
        "POST",
        "/secret-keys",
        name ? { name } : {},
      );
      if (ctx.json) printJson(ctx.io, res.data);
      else {
        ctx.io.out(res.data.secret_key);
        ctx.io.err(`created ${res.data.id} (${res.data.name}); the key above is shown only this once`);
      }
      return EXIT.ok;
    },
  },
  revoke: {
    usage: "<key-id>",
    summary: "revokes a key: requests with it are refused from now on",
    async run(ctx, args) {
      const [id] = positionals(parseArgs(args), ["key-id"]);
      const res = await ctx.api.call<{ data: SecretKey }>("DELETE", `/secret-keys/${encodeURIComponent(id as string)}`);
      if (ctx.json) printJson(ctx.io, res.data);
      else ctx.io.out(`revoked ${res.data.id} (${res.data.name})`);
      return EXIT.ok;
    },
  },
});
