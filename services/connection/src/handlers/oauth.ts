import type { ServiceImpl } from "@connectrpc/connect";
import type { ConnectionService } from "@junction/contracts/connection/v1/connection_service_pb";
import type { ConnectionServiceContext } from "../context.ts";
import { completeAuthorization } from "../oauth/authorization-callback.ts";
import { recordingFailure } from "../oauth/authorization-operation.ts";
import { startAuthorization } from "../oauth/authorization-start.ts";
import { submitConnectForm } from "../oauth/connect-form.ts";
import { createConnectSession } from "../oauth/connect-sessions.ts";
import { getConnectSession } from "./oauth/get-connect-session.ts";
import { getConsentGuidance } from "./oauth/get-consent-guidance.ts";
import { getTestMode } from "./oauth/get-test-mode.ts";
import { setTestMode } from "./oauth/set-test-mode.ts";

/** Connect sessions, the authorization-code flow, test mode and consent guidance; the longer RPCs one file each under `oauth/`. */
export function oauthHandlers(ctx: ConnectionServiceContext): Partial<ServiceImpl<typeof ConnectionService>> {
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
    getConnectSession: (req) => getConnectSession(ctx, req),
    // A started attempt is recorded when its callback ends it; one refused at its start, here.
    startAuthorization: (req) =>
      recordingFailure(
        ctx,
        { token: req.connectSessionToken, integration: req.providerConfigKey, step: "start", authMode: "OAUTH2" },
        () => startAuthorization(ctx, req),
      ),
    completeAuthorization: (req) => completeAuthorization(ctx, req),
    getTestMode: (req) => getTestMode(ctx, req),
    setTestMode: (req) => setTestMode(ctx, req),
    getConsentGuidance: (req) => getConsentGuidance(ctx, req),
  };
}
