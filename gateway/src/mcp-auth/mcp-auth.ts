import type { HostLookup } from "@junction/platform/address-policy";
import type { OperationRecorder } from "@junction/platform/operations/operation-recorder";
import {
  loadAllowedPrivateHosts,
  OutboundAddressPolicy,
  type PolicyFetch,
} from "@junction/platform/outbound-address-policy";
import type { McpAuthStore } from "./mcp-auth-store.ts";
import { MemoryMcpAuthStore } from "./memory-mcp-auth-store.ts";
import { type McpAuthSettings, mcpAuthSettingsSchema } from "./mcp-auth-settings.ts";

/** What the MCP front door's routes share: its grants, its clock, its settings, its one outbound fetch. */
export interface McpAuth {
  store: McpAuthStore;
  now(): number;
  settings: McpAuthSettings;
  /** Reads client ID metadata documents: https only, through the outbound address policy. */
  fetchClientMetadata: PolicyFetch;
  /** Where an MCP client's authorization is recorded as it ends (none when absent). */
  operations?: OperationRecorder | undefined;
}

export interface McpAuthOptions {
  store?: McpAuthStore;
  settings?: McpAuthSettings;
  /** DNS for the outbound address policy (a test resolver in tests). */
  lookup?: HostLookup;
  /** The fetch under the policy (tests give one trusting a local certificate authority). */
  fetchImpl?: PolicyFetch;
  /** Hosts allowed although private (JUNCTION_ALLOWED_PRIVATE_HOSTS when absent). */
  allowedPrivateHosts?: string[];
}

/** The front door's shared pieces, defaults filled in. */
export function createMcpAuth(
  now: () => number,
  options: McpAuthOptions = {},
  operations?: OperationRecorder,
): McpAuth {
  const policy = new OutboundAddressPolicy({
    allowedHosts: options.allowedPrivateHosts ?? loadAllowedPrivateHosts(),
    ...(options.lookup ? { lookup: options.lookup } : {}),
  });
  const fetchImpl = options.fetchImpl ?? ((input, init) => fetch(input, init));
  return {
    store: options.store ?? new MemoryMcpAuthStore(),
    now,
    settings: options.settings ?? mcpAuthSettingsSchema.parse({}),
    fetchClientMetadata: policy.guard(fetchImpl, "client_id", { httpsOnly: true }),
    operations,
  };
}

/** The MCP URL of an id: the protected resource, and the audience of its tokens. */
export const mcpResourceUrl = (baseUrl: string, id: string) => `${baseUrl}/mcp/u/${id}`;

/** RFC 9728: the resource's metadata, at the well-known path inserted before the resource's path. */
export const resourceMetadataUrl = (baseUrl: string, id: string) =>
  `${baseUrl}/.well-known/oauth-protected-resource/mcp/u/${id}`;

/** The front door's authorization server endpoints (under /mcp/oauth: /oauth is the upstream flows'). */
export function authorizationServerMetadata(baseUrl: string) {
  return {
    issuer: baseUrl,
    authorization_endpoint: `${baseUrl}/mcp/oauth/authorize`,
    token_endpoint: `${baseUrl}/mcp/oauth/token`,
    registration_endpoint: `${baseUrl}/mcp/oauth/register`,
    response_types_supported: ["code"],
    response_modes_supported: ["query"],
    grant_types_supported: ["authorization_code", "refresh_token"],
    code_challenge_methods_supported: ["S256"],
    token_endpoint_auth_methods_supported: ["none"],
    client_id_metadata_document_supported: true,
  };
}
