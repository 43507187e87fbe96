import { Code } from "@connectrpc/connect";
import type { Integration, Provider } from "@junction/contracts/connection/v1/connection_service_pb";
import { invalidArgument, JunctionError } from "@junction/platform";
import type { RouteContext } from "../../router.ts";

/** The fields a provider's form asks for: the definition's connect fields, and its mode's credentials when it names none. */
export function formFields(provider: Provider): { key: string; label: string; docsUrl: string; secret: boolean }[] {
  const fields = provider.connectFields.map((f) => ({
    key: f.key,
    label: f.label,
    docsUrl: f.docsUrl,
    secret: f.secret,
  }));
  const has = (key: string) => fields.some((f) => f.key === key);
  const add = (key: string, label: string, secret: boolean) => {
    if (!has(key)) fields.push({ key, label, docsUrl: provider.docsUrl, secret });
  };
  if (provider.authMode === "API_KEY") add("apiKey", "API key", true);
  if (provider.authMode === "BASIC") {
    add("username", "User name", false);
    add("password", "Password", true);
  }
  return fields;
}

/** Whether an integration's provider is connected through the form rather than a consent screen. */
export function usesForm(provider: Provider | undefined): boolean {
  if (provider === undefined || provider.authMode === "") return false;
  // An OAUTH2 provider asks its connect fields (a subdomain, a shop) first, then goes to its consent screen.
  return provider.authMode !== "OAUTH2" || provider.connectFields.length > 0;
}

/** The integration of the path as the session allows it (integration_not_allowed otherwise), and its provider. */
export async function allowedIntegration(
  ctx: RouteContext,
  token: string,
): Promise<{ integ: Integration; provider: Provider | undefined }> {
  const key = ctx.params.integration as string;
  const session = await ctx.clients.connection.getConnectSession({ token });
  const integ = session.integrations.find((i) => i.uniqueKey === key);
  if (!integ) {
    throw new JunctionError(
      "integration_not_allowed",
      `This connect session does not allow integration "${key}".`,
      Code.PermissionDenied,
    );
  }
  const { providers } = await ctx.clients.connection.listProviders({});
  return { integ, provider: providers.find((p) => p.name === integ.provider) };
}

/** The session's integration and its provider, or the error a browser is shown. */
export async function formIntegration(
  ctx: RouteContext,
  token: string,
): Promise<{ integ: Integration; provider: Provider }> {
  const key = ctx.params.integration as string;
  const { integ, provider } = await allowedIntegration(ctx, token);
  if (!usesForm(provider)) {
    throw invalidArgument(
      "invalid_request",
      `Integration "${key}" is connected through its provider's consent screen: open /oauth/connect/${key}.`,
    );
  }
  return { integ, provider: provider as Provider };
}
