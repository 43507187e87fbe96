import { z } from "zod";
import { json } from "../http/json.ts";
import { parseWith, readJson } from "../http/read-json.ts";
import { dataOf } from "../openapi/route-doc.ts";
import type { Route } from "../router.ts";
import { presentSettings, settingsAnswer } from "./webhook-settings-answer.ts";

const updateSchema = z.object({ endpoints: z.array(z.string().url().max(2048)).max(10) }).strict();
const rotateSchema = z
  .object({
    grace_period_seconds: z
      .number()
      .int()
      .min(0)
      .max(7 * 24 * 3600)
      .optional(),
  })
  .strict();

/** /webhook-settings: where forwarded and auth webhooks go, and the signing secret (never shown again). */
export function webhookSettingsRoutes(): Route[] {
  return [
    {
      method: "GET",
      pattern: "/webhook-settings",
      handler: async ({ clients }) => json({ data: presentSettings((await clients.webhook.getSettings({})).settings) }),
      doc: {
        summary: "Get the webhook settings",
        tags: ["Webhooks"],
        responses: { 200: dataOf(settingsAnswer) },
        errors: [],
      },
    },
    {
      method: "PUT",
      pattern: "/webhook-settings",
      handler: async ({ clients, req }) => {
        const body = parseWith(updateSchema, await readJson(req, 64 * 1024), "invalid_body", "body");
        const res = await clients.webhook.updateSettings({ endpointUrls: body.endpoints });
        const shown = res.signingSecret ? { signing_secret: res.signingSecret } : {};
        return json({ data: { ...presentSettings(res.settings), ...shown } });
      },
      doc: {
        summary: "Set the webhook endpoints",
        description:
          "The answer of the call that sets the first endpoint carries `signing_secret`, once; no later answer does. " +
          "To get a new one, rotate it with `POST /webhook-settings/signing-secret`.",
        tags: ["Webhooks"],
        body: updateSchema,
        responses: { 200: dataOf(settingsAnswer.extend({ signing_secret: z.string().optional() })) },
        errors: ["invalid_endpoint_url", "private_address_not_allowed", "too_many_endpoints", "settings_conflict"],
      },
    },
    {
      method: "POST",
      pattern: "/webhook-settings/signing-secret",
      handler: async ({ clients, req }) => {
        const body = req.headers.get("content-length") === "0" || !req.body ? {} : await readJson(req, 4096);
        const q = parseWith(rotateSchema, body, "invalid_body", "body");
        const res = await clients.webhook.rotateSigningSecret({
          graceMs: BigInt((q.grace_period_seconds ?? 24 * 3600) * 1000),
        });
        return json({ data: { signing_secret: res.signingSecret, ...presentSettings(res.settings) } }, 201);
      },
      doc: {
        summary: "Rotate the webhook signing secret",
        description:
          "The new secret is shown in this answer only; the previous one stays valid for the grace period (default 24 hours).",
        tags: ["Webhooks"],
        body: rotateSchema,
        bodyOptional: true,
        responses: { 201: dataOf(settingsAnswer.extend({ signing_secret: z.string() })) },
        errors: ["invalid_grace_period", "settings_conflict"],
      },
    },
  ];
}
