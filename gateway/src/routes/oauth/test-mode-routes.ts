import type { TestMode } from "@junction/contracts/connection/v1/connection_service_pb";
import { z } from "zod";
import { json } from "../../http/json.ts";
import { parseWith, queryObject, readJson } from "../../http/read-json.ts";
import { dataOf, type RouteDoc } from "../../openapi/route-doc.ts";
import type { Route, RouteContext } from "../../router.ts";

const noQuery = z.object({}).strict();
const switchBody = z.object({ enabled: z.boolean() }).strict();

const testModeAnswer = dataOf(
  z.object({ enabled: z.boolean(), available: z.boolean(), client_id: z.string().nullable(), sandbox: z.boolean() }),
);
const keyParam = { key: "The integration's id." };

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
    { method: "GET", pattern: "/integrations/:key/test-mode", handler: getTestMode, doc: getDoc },
    { method: "PUT", pattern: "/integrations/:key/test-mode", handler: setTestMode, doc: setDoc },
    { method: "GET", pattern: "/integrations/:key/consent", handler: consentGuidance, doc: consentDoc },
  ];
}

async function getTestMode({ clients, params, url }: RouteContext): Promise<Response> {
  parseWith(noQuery, queryObject(url), "invalid_query_params", "query");
  const res = await clients.connection.getTestMode({ uniqueKey: params.key as string });
  return json({ data: presentTestMode(res.testMode) });
}

const getDoc: RouteDoc = {
  summary: "Get an integration's test mode",
  tags: ["Integrations"],
  params: keyParam,
  query: noQuery,
  responses: { 200: testModeAnswer },
  errors: ["unknown_provider_config"],
};

async function setTestMode({ clients, params, req }: RouteContext): Promise<Response> {
  const body = parseWith(switchBody, await readJson(req, 1024), "invalid_body", "body");
  const res = await clients.connection.setTestMode({ uniqueKey: params.key as string, enabled: body.enabled });
  return json({ data: presentTestMode(res.testMode) });
}

const setDoc: RouteDoc = {
  summary: "Switch an integration's test mode",
  description: "On: the integration authorizes with the operator's test OAuth client.",
  tags: ["Integrations"],
  params: keyParam,
  body: switchBody,
  responses: { 200: testModeAnswer },
  errors: ["unknown_provider_config", "unknown_provider"],
};

async function consentGuidance({ clients, params, url }: RouteContext): Promise<Response> {
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
}

const consentDoc: RouteDoc = {
  summary: "Get an integration's consent guidance",
  description: "What its scopes mean upstream: sensitivity, verification, Testing-mode limits.",
  tags: ["Integrations"],
  params: keyParam,
  query: noQuery,
  responses: {
    200: dataOf(
      z.object({
        provider_config_key: z.string(),
        provider: z.string(),
        scopes: z.array(z.object({ name: z.string(), description: z.string().nullable(), sensitivity: z.string() })),
        highest_sensitivity: z.string(),
        verification_required: z.boolean(),
        security_assessment_required: z.boolean(),
        testing_mode_refresh_token_days: z.number().int(),
        notes: z.array(z.string()),
      }),
    ),
  },
  errors: ["unknown_provider_config"],
};
