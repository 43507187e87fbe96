import { integrationOrRefuse } from "./integration-or-refuse.ts";
import { create, type JsonObject } from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";
import { type ConnectionService, TestModeSchema } from "@junction/contracts/connection/v1/connection_service_pb";
import type { ConnectionServiceContext } from "../context.ts";
import { errors } from "../errors.ts";
import { toIntegration } from "../mappers.ts";
import { completeAuthorization } from "../oauth/authorization-callback.ts";
import { recordingFailure } from "../oauth/authorization-operation.ts";
import { startAuthorization } from "../oauth/authorization-start.ts";
import { submitConnectForm } from "../oauth/connect-form.ts";
import { createConnectSession, resolveConnectSession, sessionAllows } from "../oauth/connect-sessions.ts";
import type { IntegrationRecord } from "../store/records.ts";

/** Connect sessions, the authorization-code flow, test mode and consent guidance (OAuth issue). */
export function oauthHandlers(ctx: ConnectionServiceContext): Partial<ServiceImpl<typeof ConnectionService>> {
  const load = async (key: string) => {
    const env = await ctx.environment();
    return { env, rec: await integrationOrRefuse(ctx, env.id, key) };
  };
  const testMode = (rec: IntegrationRecord) => {
    const test = ctx.oauth.testCredentials[rec.provider];
    return create(TestModeSchema, {
      enabled: rec.useTestCredentials,
      available: test !== undefined,
      clientId: test?.clientId ?? "",
      sandbox: test?.sandbox === true,
    });
  };

  return {
    async createConnectSession(req) {
      const { token, expiresAt } = await createConnectSession(ctx, req);
      return { token, expiresAtMs: BigInt(expiresAt) };
    },

    submitConnectForm: (req) =>
      recordingFailure(
        ctx,
        { token: req.connectSessionToken, integration: req.providerConfigKey, step: "form", authMode: "" },
        () => submitConnectForm(ctx, req),
      ),

    async getConnectSession(req) {
      const session = await resolveConnectSession(ctx, req.token);
      const all = await ctx.store.listIntegrations(session.environmentId);
      return {
        integrations: all.filter((i) => sessionAllows(session, i.uniqueKey)).map((i) => toIntegration(i, ctx.baseUrl)),
        endUser: (session.endUser ?? undefined) as JsonObject | undefined,
        expiresAtMs: BigInt(session.expiresAt),
        reconnectConnectionId: session.reconnect?.connectionId ?? "",
        organization: (session.organization ?? undefined) as JsonObject | undefined,
        tags: session.tags,
        allowedIntegrations: session.allowedIntegrations,
        integrationsConfigDefaults: Object.fromEntries(
          Object.entries(session.integrationsConfigDefaults).map(([k, d]) => [
            k,
            { ...d, connectionConfig: d.connectionConfig as JsonObject },
          ]),
        ),
        overrides: Object.fromEntries(
          Object.entries(session.overrides).map(([k, o]) => [
            k,
            {
              docsConnect: o.docsConnect ?? "",
              userScopes: o.userScopes ?? [],
              authorizationParams: o.authorizationParams ?? {},
              connectionConfig: o.connectionConfig as JsonObject | undefined,
            },
          ]),
        ),
      };
    },

    async startAuthorization(req) {
      // A started attempt is recorded when its callback ends it; one refused at its start, here.
      return recordingFailure(
        ctx,
        { token: req.connectSessionToken, integration: req.providerConfigKey, step: "start", authMode: "OAUTH2" },
        () => startAuthorization(ctx, req),
      );
    },

    async completeAuthorization(req) {
      return completeAuthorization(ctx, req);
    },

    async getTestMode(req) {
      const { rec } = await load(req.uniqueKey);
      return { testMode: testMode(rec) };
    },

    async setTestMode(req) {
      const { env, rec } = await load(req.uniqueKey);
      if (req.enabled && !ctx.oauth.testCredentials[rec.provider]) {
        throw errors.testCredentialsUnavailable(rec.uniqueKey, rec.provider);
      }
      const next: IntegrationRecord = { ...rec, useTestCredentials: req.enabled, updatedAt: ctx.clock.now() };
      if (!(await ctx.store.replaceIntegration(env.id, rec.uniqueKey, next))) {
        throw errors.unknownProviderConfig(req.uniqueKey);
      }
      ctx.logger.info("integration test mode switched", { integration: rec.uniqueKey, enabled: req.enabled });
      return { testMode: testMode(next) };
    },

    async getConsentGuidance(req) {
      const { rec } = await load(req.uniqueKey);
      const template = ctx.providers.get(rec.provider);
      if (!template)
        throw errors.unknownProvider(
          rec.provider,
          ctx.providers.list().map((p) => p.name),
        );
      const g = template.consentGuidance(rec.scopes);
      return {
        providerConfigKey: rec.uniqueKey,
        provider: rec.provider,
        scopes: g.scopes,
        highestSensitivity: g.highestSensitivity,
        verificationRequired: g.verificationRequired,
        securityAssessmentRequired: g.securityAssessmentRequired,
        testingModeRefreshTokenDays: g.testingModeRefreshTokenDays,
        notes: g.notes,
      };
    },
  };
}
