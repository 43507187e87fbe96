import type { ServiceImpl } from "@connectrpc/connect";
import type { ConnectionService } from "@junction/contracts/connection/v1/connection_service_pb";
import { alreadyExists } from "@junction/platform";
import { ProviderDefinitionError, providerAdapter } from "@junction/providers";
import type { ConnectionServiceContext } from "../context.ts";
import { errors } from "../errors.ts";
import { toProvider } from "../mappers.ts";
import { checkDefinitionAddresses } from "../providers/definition-addresses.ts";

/**
 * The provider catalogue: listed, and added to with definitions sent as data (POST /providers): new names
 * only (a built-in's data is the operator's to change, in the data dir), every URL through the address policy.
 */
export function providerHandlers(ctx: ConnectionServiceContext): Partial<ServiceImpl<typeof ConnectionService>> {
  return {
    async listProviders() {
      return { providers: ctx.providers.list().map(toProvider) };
    },

    async putProvider(req) {
      let input: unknown;
      try {
        input = JSON.parse(req.definitionJson);
      } catch {
        throw errors.invalidProviderDefinition("(unnamed)", "The provider definition is not JSON.", [
          { path: "(definition)", message: "must be a JSON object in the provider definition schema" },
        ]);
      }
      if (typeof input !== "object" || input === null || Array.isArray(input)) {
        throw errors.invalidProviderDefinition("(unnamed)", "The provider definition is not a JSON object.", [
          { path: "(definition)", message: "must be a JSON object in the provider definition schema" },
        ]);
      }
      const name = (input as { name?: unknown }).name;
      // Redefining a built-in over the API would send its connections' tokens wherever the new data says.
      if (typeof name === "string" && providerAdapter(name) !== undefined) {
        throw alreadyExists(
          "provider_is_built_in",
          `"${name}" is a built-in provider and cannot be redefined over the API; define it under a new name. Nothing was saved.`,
        );
      }
      checkDefinitionAddresses(input as Record<string, unknown>, ctx.addressPolicy);
      let adapter: ReturnType<typeof ctx.providers.adapterOf>;
      try {
        adapter = ctx.providers.adapterOf(input);
      } catch (err) {
        if (!(err instanceof ProviderDefinitionError)) throw err;
        throw errors.invalidProviderDefinition(
          err.provider,
          err.message,
          err.issues.map((i) => ({ path: i.path || "(definition)", message: i.message })),
        );
      }
      // Stored first: a definition the store did not take is not served either.
      const created = await ctx.store.putProviderDefinition({
        name: adapter.name,
        definition: JSON.stringify(input),
        updatedAt: ctx.clock.now(),
      });
      ctx.providers.define(adapter);
      ctx.logger.info("provider defined", { provider: adapter.name, created });
      return { provider: toProvider(adapter), created };
    },
  };
}
