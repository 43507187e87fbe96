import { readTextLimited } from "@junction/platform";
import { z } from "zod";
import { newSecret } from "../../mcp-auth/mcp-auth-store.ts";
import type { McpAuth } from "../../mcp-auth/mcp-auth.ts";
import { oauthError, oauthJson, redirectUriProblem } from "../../mcp-auth/oauth-answers.ts";
import type { Route } from "../../router.ts";

const MAX_BODY_BYTES = 16 * 1024;
/** A registered client that has not been used for this long may make room for a new one. */
const UNUSED_CLIENT_MS = 86_400_000;

/** RFC 7591's client metadata: what Junction reads of it (other fields are ignored, as the RFC asks). */
const registrationBody = z.looseObject({
  redirect_uris: z.array(z.string().max(2048)).min(1).max(10),
  client_name: z.string().max(200).optional(),
  token_endpoint_auth_method: z.string().max(100).optional(),
  grant_types: z.array(z.string().max(100)).max(10).optional(),
  response_types: z.array(z.string().max(100)).max(10).optional(),
});

const registrationAnswer = z.object({
  client_id: z.string(),
  client_id_issued_at: z.number().int(),
  client_name: z.string(),
  redirect_uris: z.array(z.string()),
  token_endpoint_auth_method: z.literal("none"),
  grant_types: z.array(z.string()),
  response_types: z.array(z.string()),
});

type Registration = z.infer<typeof registrationBody> & { grants: string[] };

/** Reads and checks the client's metadata: the registration, or the OAuth error refusing it. */
async function validateRegistration(req: Request): Promise<Registration | Response> {
  const tooLarge = new Error("too large");
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readTextLimited(req.body, MAX_BODY_BYTES, () => tooLarge));
  } catch (err) {
    if (err === tooLarge)
      return oauthError(413, "invalid_client_metadata", `The body exceeds ${MAX_BODY_BYTES} bytes.`);
    return oauthError(400, "invalid_client_metadata", "The body is not JSON.");
  }
  const body = registrationBody.safeParse(parsed);
  if (!body.success) {
    const issue = body.error.issues[0];
    return oauthError(400, "invalid_client_metadata", `${issue?.path.join(".") || "body"}: ${issue?.message}`);
  }
  for (const uri of body.data.redirect_uris) {
    const problem = redirectUriProblem(uri);
    if (problem) return oauthError(400, "invalid_redirect_uri", `The redirect URI ${uri} ${problem}.`);
  }
  const grants = body.data.grant_types ?? ["authorization_code", "refresh_token"];
  if (grants.some((g) => g !== "authorization_code" && g !== "refresh_token")) {
    return oauthError(
      400,
      "invalid_client_metadata",
      "grant_types may hold authorization_code and refresh_token only.",
    );
  }
  return { ...body.data, grants };
}

/** Whether one more client may be kept; when full, clients registered a day ago and never used make room. */
async function makeRoomForClient(auth: McpAuth): Promise<boolean> {
  const full = async () => (await auth.store.dynamicClientCount()) >= auth.settings.mcpMaxRegisteredClients;
  // Registration needs no credential, so the unused ones are the first to go.
  if (await full()) await auth.store.forgetUnusedClients(auth.now() - UNUSED_CLIENT_MS);
  return !(await full());
}

/** Saves the client and answers its registration (RFC 7591 section 3.2.1). */
async function registerClient(auth: McpAuth, registration: Registration): Promise<Response> {
  const issuedAtMs = auth.now();
  const client = {
    clientId: newSecret("mcpc_"),
    clientName: registration.client_name ?? "An MCP client",
    redirectUris: registration.redirect_uris,
    savedAtMs: issuedAtMs,
    kind: "dynamic" as const,
  };
  await auth.store.putClient(client);
  return oauthJson(
    {
      client_id: client.clientId,
      client_id_issued_at: Math.floor(issuedAtMs / 1000),
      client_name: client.clientName,
      redirect_uris: client.redirectUris,
      // A public client: whatever method it asked for, it authenticates with PKCE alone.
      token_endpoint_auth_method: "none",
      grant_types: registration.grants,
      response_types: ["code"],
    },
    201,
  );
}

/**
 * POST /mcp/oauth/register: dynamic client registration (RFC 7591) of a public client (PKCE, no
 * secret). Redirect URIs must be https or loopback http; at most JUNCTION_MCP_MAX_REGISTERED_CLIENTS
 * clients are kept.
 */
export function clientRegistrationRoute(auth: McpAuth): Route {
  return {
    method: "POST",
    pattern: "/mcp/oauth/register",
    auth: false,
    handler: async ({ req }) => {
      const registration = await validateRegistration(req);
      if (registration instanceof Response) return registration;
      if (!(await makeRoomForClient(auth))) {
        return oauthError(503, "temporarily_unavailable", "No more clients can be registered now.");
      }
      return registerClient(auth, registration);
    },
    doc: {
      summary: "Register an MCP client (dynamic client registration)",
      description:
        "RFC 7591 for MCP clients: a public client (PKCE, no secret); `redirect_uris` must be https or http to a loopback host. Errors are OAuth's (`{error, error_description}`: `invalid_redirect_uri`, `invalid_client_metadata`), not Junction's error body.",
      tags: ["MCP"],
      rawBody: "The client's metadata as JSON (RFC 7591 section 2): `redirect_uris` (required), `client_name`.",
      responses: {
        201: registrationAnswer,
        400: {
          description: "An OAuth error: `invalid_redirect_uri` or `invalid_client_metadata`.",
          contentType: "application/json",
        },
      },
      errors: [],
    },
  };
}
