import type { Settings } from "@junction/contracts/webhook/v1/webhook_service_pb";
import { z } from "zod";
import { iso } from "../http/json.ts";
import { isoOrNull } from "../openapi/route-doc.ts";

/** The webhook settings as every /webhook-settings route answers them (never a secret). */
export function presentSettings(s: Settings | undefined) {
  return {
    endpoints: (s?.endpoints ?? []).map((e) => ({
      id: e.id,
      url: e.url,
      enabled: e.enabled,
      disabled_reason: e.disabledReason || null,
      failing_since: iso(e.failingSinceMs),
    })),
    signing_secret_prefix: s?.signingSecretPrefix || null,
    previous_secret_valid_until: iso(s?.previousSecretValidUntilMs ?? 0n),
  };
}

export const settingsAnswer = z.object({
  endpoints: z.array(
    z.object({
      id: z.string(),
      url: z.string(),
      enabled: z.boolean(),
      disabled_reason: z.string().nullable(),
      failing_since: isoOrNull,
    }),
  ),
  signing_secret_prefix: z.string().nullable(),
  previous_secret_valid_until: isoOrNull,
});
