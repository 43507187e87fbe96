import { loadConfig } from "@junction/platform";
import { z } from "zod";
import { parseAllowedHosts } from "@junction/platform/outbound-address-policy";

/** "true"/"false" from an environment variable, or a boolean from the config file. */
const flag = z
  .union([z.boolean(), z.enum(["true", "false"], { message: 'must be "true" or "false"' })])
  .transform((v) => v === true || v === "true");

/**
 * The connection service's own operator settings (JUNCTION_*). They are configuration, not API state:
 * a secret-key holder can read them (GetEnvironment) but never change them.
 */
export const connectionSettingsSchema = z.object({
  /**
   * Whether GET /connection/{id} returns the access token (Nango's behaviour, spec: Authentication 3).
   * Off: that route answers 403 credential_reads_disabled and tokens only ever leave through the proxy.
   */
  credentialReads: flag.default(true),
  /**
   * Hosts that integration URLs (upstream_overrides, provider definitions) may point at although they
   * are private or loopback addresses: comma-separated names or addresses. Empty: none.
   */
  allowedPrivateHosts: z
    .union([z.array(z.string()), z.string()])
    .default([])
    .transform((v) => (typeof v === "string" ? parseAllowedHosts(v) : v)),
});

export type ConnectionSettings = z.infer<typeof connectionSettingsSchema>;

/** Loads the settings; fails fast naming the variable that is wrong (JUNCTION_CREDENTIAL_READS). */
export function loadConnectionSettings(env: Record<string, string | undefined> = process.env): ConnectionSettings {
  return loadConfig(connectionSettingsSchema, { prefix: "JUNCTION_", env });
}
