import { flagSetting, loadConfig, SECRET_KEY_MIN_LENGTH } from "@junction/platform";
import { z } from "zod";

/** The process's own settings (JUNCTION_*), read through one schema: a bad value stops start-up naming it. */
export const processSettingsSchema = z.object({
  /** The address every listener binds (JUNCTION_HOST): loopback unless the operator opens it (the image does). */
  host: z.string().trim().min(1).default("127.0.0.1"),
  /** A secret key to accept, registered on start (JUNCTION_SECRET_KEY); never echoed in a message. */
  secretKey: z
    .string()
    .min(SECRET_KEY_MIN_LENGTH, { message: `must be at least ${SECRET_KEY_MIN_LENGTH} characters long` })
    .optional(),
  /** Starts the built-in sandbox upstream in the embedded process (JUNCTION_SANDBOX_UPSTREAM). */
  sandboxUpstream: flagSetting,
  /** Its port; 0 picks a free one (JUNCTION_SANDBOX_UPSTREAM_PORT). */
  sandboxUpstreamPort: z.coerce.number().int().min(0).max(65_535).default(0),
});

export type ProcessSettings = z.infer<typeof processSettingsSchema>;

export function loadProcessSettings(env: Record<string, string | undefined>): ProcessSettings {
  return loadConfig(processSettingsSchema, { prefix: "JUNCTION_", env });
}
