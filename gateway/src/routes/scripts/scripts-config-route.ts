import { z } from "zod";
import { json } from "../../http/json.ts";
import { parseWith, queryObject } from "../../http/read-json.ts";
import type { Route } from "../../router.ts";
import { nangoScriptsConfig, openAiFunctions } from "./scripts-config.ts";

const configQuery = z.object({ format: z.enum(["nango", "openai"]).default("nango") }).strict();

const flow = z
  .object({ name: z.string(), type: z.enum(["sync", "action", "on-event"]), description: z.string() })
  .catchall(z.unknown());
const nangoAnswer = z.array(
  z.object({
    providerConfigKey: z.string(),
    provider: z.string().optional(),
    syncs: z.array(flow),
    actions: z.array(flow),
    "on-events": z.array(flow),
  }),
);
const openAiAnswer = z.object({
  data: z.array(
    z.object({
      name: z.string(),
      description: z.string(),
      parameters: z.object({
        type: z.literal("object"),
        properties: z.record(z.string(), z.unknown()),
        required: z.array(z.string()),
      }),
    }),
  ),
});

/**
 * GET /scripts/config: the environment's deployed scripts as Nango's `nango.getScriptsConfig()` reads
 * them (StandardNangoConfig per integration), or with `format=openai` as function definitions for
 * function calling (`{data: [{name, description, parameters}]}`) of every sync and action.
 */
export function scriptsConfigRoute(): Route {
  return {
    method: "GET",
    pattern: "/scripts/config",
    handler: async ({ url, clients }) => {
      const { format } = parseWith(configQuery, queryObject(url), "invalid_query_params", "query");
      const [{ scripts }, { integrations }] = await Promise.all([
        clients.scripts.listScripts({ providerConfigKey: "" }),
        clients.connection.listIntegrations({}),
      ]);
      const providers = new Map(integrations.map((i) => [i.uniqueKey, i.provider]));
      if (format === "openai") return json({ data: openAiFunctions(scripts, providers) });
      return json(nangoScriptsConfig(scripts, providers));
    },
    doc: {
      summary: "Get the scripts' configuration (tool schemas)",
      description:
        "`format=nango` (default): per integration, its syncs, actions and on-event scripts as Nango answers them (each action's input and output schemas under `json_schema.definitions`, `Input` and `Output`). `format=openai`: every sync and action as an OpenAI function definition; an action's parameters are its input schema's.",
      tags: ["Scripts"],
      query: configQuery,
      responses: { 200: z.union([nangoAnswer, openAiAnswer]) },
      errors: [],
    },
  };
}
