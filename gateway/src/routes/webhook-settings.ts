import type { Settings } from "@junction/contracts/webhook/v1/webhook_service_pb";
import { z } from "zod";
import { iso, json } from "../http/json.ts";
import { parseWith, readJson } from "../http/read-json.ts";
import type { Route } from "../router.ts";

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

function present(s: Settings | undefined) {
  return {
    endpoints: (s?.endpoints ?? []).map((e) => ({ id: e.id, url: e.url, enabled: e.enabled })),
    signing_secret_prefix: s?.signingSecretPrefix || null,
    previous_secret_valid_until: iso(s?.previousSecretValidUntilMs ?? 0n),
  };
}

/** /webhook-settings: where forwarded and auth webhooks go, and the signing secret (never shown again). */
export function webhookSettingsRoutes(): Route[] {
  return [
    {
      method: "GET",
      pattern: "/webhook-settings",
      handler: async ({ clients }) => json({ data: present((await clients.webhook.getSettings({})).settings) }),
    },
    {
      method: "PUT",
      pattern: "/webhook-settings",
      handler: async ({ clients, req }) => {
        const body = parseWith(updateSchema, await readJson(req, 64 * 1024), "invalid_body", "body");
        const res = await clients.webhook.updateSettings({ endpointUrls: body.endpoints });
        return json({ data: present(res.settings) });
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
        return json({ data: { signing_secret: res.signingSecret, ...present(res.settings) } }, 201);
      },
    },
  ];
}
