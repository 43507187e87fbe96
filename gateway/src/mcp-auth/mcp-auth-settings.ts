import { loadConfig } from "@junction/platform";
import { z } from "zod";

const seconds = (fallback: number) => z.coerce.number().int().min(1).max(31_536_000).default(fallback);

/** The MCP front door's operator settings (JUNCTION_MCP_*). */
export const mcpAuthSettingsSchema = z.object({
  /** How long an MCP client's access token is valid. */
  mcpAccessTokenTtlSeconds: seconds(3600),
  /** How long a refresh token is valid (each use answers a new one). */
  mcpRefreshTokenTtlSeconds: seconds(30 * 86_400),
  /** At most this many dynamically registered clients are kept (POST /mcp/oauth/register). */
  mcpMaxRegisteredClients: z.coerce.number().int().min(1).max(1_000_000).default(10_000),
});

export type McpAuthSettings = z.infer<typeof mcpAuthSettingsSchema>;

/** Loads the settings; fails fast naming the variable that is wrong. */
export function loadMcpAuthSettings(env: Record<string, string | undefined> = process.env): McpAuthSettings {
  return loadConfig(mcpAuthSettingsSchema, { prefix: "JUNCTION_", env });
}

/** Fixed by the protocol's needs rather than by an operator: a code is exchanged at once. */
export const AUTHORIZATION_CODE_TTL_MS = 60_000;
/** The consent page stays usable this long. */
export const CONSENT_TTL_MS = 10 * 60_000;
