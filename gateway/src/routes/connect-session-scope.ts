import { Code } from "@connectrpc/connect";
import type { Integration, Provider } from "@junction/contracts/connection/v1/connection_service_pb";
import { JunctionError } from "@junction/platform";
import type { RouteContext } from "../router.ts";

/**
 * What a connect session token reaches on the routes that accept one (Nango's Connect UI calls them so):
 * the integrations its session allows, and their providers. An unknown or expired token is refused by
 * the connection service (401 unknown_connect_session_token, connect_session_expired).
 */
export async function sessionIntegrations(ctx: RouteContext, token: string): Promise<Integration[]> {
  const session = await ctx.clients.connection.getConnectSession({ token });
  return session.integrations;
}

/** The provider `name` when an integration the session allows uses it; 403 otherwise. */
export async function sessionProvider(ctx: RouteContext, token: string, name: string): Promise<Provider> {
  const integrations = await sessionIntegrations(ctx, token);
  const { providers } = await ctx.clients.connection.listProviders({});
  const provider = integrations.some((i) => i.provider === name) ? providers.find((p) => p.name === name) : undefined;
  if (!provider) {
    throw new JunctionError(
      "integration_not_allowed",
      `This connect session allows no integration of provider "${name}".`,
      Code.PermissionDenied,
    );
  }
  return provider;
}
