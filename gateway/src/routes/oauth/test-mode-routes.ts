import type { TestMode } from "@junction/contracts/connection/v1/connection_service_pb";
import { z } from "zod";
import { json } from "../../http/json.ts";
import { parseWith, queryObject, readJson } from "../../http/read-json.ts";
import type { Route } from "../../router.ts";

const noQuery = z.object({}).strict();
const switchBody = z.object({ enabled: z.boolean() }).strict();

function presentTestMode(t: TestMode | undefined) {
  return {
    enabled: t?.enabled ?? false,
    available: t?.available ?? false,
    client_id: t?.clientId || null,
    sandbox: t?.sandbox ?? false,
  };
}

/** /integrations/{id}/test-mode (spec: Authentication 4) and /integrations/{id}/consent (Authentication 5-8). */
export function testModeRoutes(): Route[] {
  return [
    {
      method: "GET",
      pattern: "/integrations/:key/test-mode",
      handler: async ({ clients, params, url }) => {
        parseWith(noQuery, queryObject(url), "invalid_query_params", "query");
        const res = await clients.connection.getTestMode({ uniqueKey: params.key as string });
        return json({ data: presentTestMode(res.testMode) });
      },
    },
    {
      method: "PUT",
      pattern: "/integrations/:key/test-mode",
      handler: async ({ clients, params, req }) => {
        const body = parseWith(switchBody, await readJson(req, 1024), "invalid_body", "body");
        const res = await clients.connection.setTestMode({ uniqueKey: params.key as string, enabled: body.enabled });
        return json({ data: presentTestMode(res.testMode) });
      },
    },
    {
      method: "GET",
      pattern: "/integrations/:key/consent",
      handler: async ({ clients, params, url }) => {
        parseWith(noQuery, queryObject(url), "invalid_query_params", "query");
        const g = await clients.connection.getConsentGuidance({ uniqueKey: params.key as string });
        return json({
          data: {
            provider_config_key: g.providerConfigKey,
            provider: g.provider,
            scopes: g.scopes.map((s) => ({
              name: s.name,
              description: s.description || null,
              sensitivity: s.sensitivity,
            })),
            highest_sensitivity: g.highestSensitivity,
            verification_required: g.verificationRequired,
            security_assessment_required: g.securityAssessmentRequired,
            testing_mode_refresh_token_days: g.testingModeRefreshTokenDays,
            notes: g.notes,
          },
        });
      },
    },
  ];
}
