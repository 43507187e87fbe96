import type { ProviderAdapter } from "@junction/providers";
import { placeholderKeys } from "@junction/providers";
import type { ConnectionServiceContext } from "../context.ts";
import { connectionBaseUrl } from "../oauth/oauth-client.ts";
import { connectionKeys } from "../oauth/url-placeholders.ts";
import type { IntegrationRecord } from "../store/records.ts";

/**
 * When a connection config is saved (imported with POST /connections, typed into the connect form, read
 * from a token answer): a value that becomes the host of the connection's base URL (Salesforce's
 * `instance_url`, DocuSign's `base_uri`, a `{subdomain}`) is checked by the outbound address policy, so a
 * connection cannot point the proxy at the operator's network. The field named is the connection-config
 * key. A base URL the config does not fill yet is left to the first call (which fills and checks it).
 */
export function checkConnectionHosts(
  ctx: Pick<ConnectionServiceContext, "addressPolicy">,
  integ: IntegrationRecord,
  template: ProviderAdapter | undefined,
  connectionConfig: Readonly<Record<string, unknown>>,
): void {
  const baseUrl = integ.overrides.baseUrl || template?.baseUrl || "";
  if (!template || !baseUrl.includes("{")) return;
  const own = connectionKeys(template);
  const keys = placeholderKeys(baseUrl).filter((k) => own.has(k) && connectionConfig[k] !== undefined);
  if (keys.length === 0) return;
  // A whole URL (`{instance_url}`): its scheme and host as given, even one the fill would refuse.
  const whole = keys.find((k) => baseUrl.startsWith(`{${k}}`));
  const value = whole === undefined ? undefined : connectionConfig[whole];
  if (whole !== undefined && typeof value === "string") {
    ctx.addressPolicy.checkSaved(value, `connection_config.${whole}`);
  }
  let filled: string;
  try {
    filled = connectionBaseUrl(integ, template, baseUrl, connectionConfig);
  } catch {
    return;
  }
  ctx.addressPolicy.checkSaved(filled, keys.length === 1 ? `connection_config.${keys[0]}` : "connection_config");
}
