import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigError, JunctionError } from "@junction/platform";
import type { OutboundAddressPolicy } from "@junction/platform/outbound-address-policy";
import { adapterFromDefinition, type ProviderAdapter, ProviderDefinitionError } from "@junction/providers";
import { checkDefinitionAddresses } from "./definition-addresses.ts";

/**
 * The providers defined as data in `{dir}/*.json` (one definition per file, the schema of
 * packages/providers' definitions), for APIs Junction does not ship or to override a built-in's data.
 * A URL the address policy refuses (a private host the operator did not allow) is refused as in POST /providers.
 * A file that does not parse or validate stops the start with a ConfigError naming the file, the
 * provider and each field; none is loaded half.
 */
export function loadDefinitionFiles(
  dir: string,
  builtins: readonly ProviderAdapter[],
  policy: OutboundAddressPolicy,
): ProviderAdapter[] {
  if (!existsSync(dir)) return [];
  const byName = new Map(builtins.map((b) => [b.name, b]));
  const out: ProviderAdapter[] = [];
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort()) {
    const path = join(dir, file);
    let input: unknown;
    try {
      input = JSON.parse(readFileSync(path, "utf8"));
    } catch (err) {
      throw new ConfigError(`provider definition ${path}: not valid JSON (${(err as Error).message})`);
    }
    const name = (input as { name?: unknown } | null)?.name;
    try {
      // The schema first (its words for a malformed URL), then the address policy on what it accepted.
      const adapter = adapterFromDefinition(input, typeof name === "string" ? byName.get(name) : undefined);
      checkDefinitionAddresses(input as Record<string, unknown>, policy);
      out.push(adapter);
    } catch (err) {
      if (err instanceof ProviderDefinitionError) throw new ConfigError(`provider definition ${path}: ${err.message}`);
      if (err instanceof JunctionError) {
        throw new ConfigError(
          `provider definition ${path}: Provider definition "${String(name)}" is refused: ${err.message}`,
        );
      }
      throw err;
    }
  }
  return out;
}
