import type { ServiceImpl } from "@connectrpc/connect";
import type { ConnectionService } from "@junction/contracts/connection/v1/connection_service_pb";
import { ProviderDefinitionError } from "@junction/providers";
import type { ConnectionServiceContext } from "../context.ts";
import { errors } from "../errors.ts";
import { toProvider } from "../mappers.ts";

/** The provider catalogue: listed, and added to or overridden with definitions sent as data (POST /providers). */
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
