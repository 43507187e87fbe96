import { Code } from "@connectrpc/connect";
import { JunctionError } from "@junction/platform";
import { z } from "zod";
import { iso, json } from "../http/json.ts";
import { parseWith, readJson } from "../http/read-json.ts";
import type { Authenticator } from "../middleware/authenticate.ts";
import { API_KEY_SCOPES } from "../middleware/scopes.ts";
import { dataOf, isoOrNull, type RouteDoc } from "../openapi/route-doc.ts";
import type { Route, RouteContext } from "../router.ts";
import type { SecretKey } from "@junction/contracts/connection/v1/connection_service_pb";

const createSchema = z
  .object({
    name: z.string().min(1).max(100).optional(),
    scopes: z
      .array(z.enum(API_KEY_SCOPES))
      .max(API_KEY_SCOPES.length)
      .optional()
      .describe("Limits the key to these scopes; left out or empty: full access."),
  })
  .strict();

function present(k: SecretKey) {
  return {
    id: k.id,
    name: k.name,
    prefix: k.prefix,
    scopes: k.scopes,
    created_at: iso(k.createdAtMs),
    last_used_at: iso(k.lastUsedAtMs),
    revoked_at: iso(k.revokedAtMs),
  };
}

const keyAnswer = z
  .object({
    id: z.string(),
    name: z.string(),
    prefix: z.string(),
    scopes: z.array(z.string()).describe("The scopes the key is limited to; empty: full access."),
    created_at: isoOrNull,
    last_used_at: isoOrNull.describe("When the key last authenticated a request (to a few seconds)."),
    revoked_at: isoOrNull,
  })
  .meta({ id: "SecretKey" });

/** /secret-keys: several keys may exist; revoking one stops it authenticating (within seconds). */
export function secretKeyRoutes(authenticator: Authenticator): Route[] {
  return [
    { method: "GET", pattern: "/secret-keys", handler: listKeys, doc: listDoc },
    { method: "POST", pattern: "/secret-keys", handler: createKey, doc: createDoc },
    {
      method: "DELETE",
      pattern: "/secret-keys/:id",
      handler: (ctx) => revokeKey(authenticator, ctx),
      doc: revokeDoc,
    },
  ];
}

async function listKeys({ clients }: RouteContext): Promise<Response> {
  const { keys } = await clients.connection.listSecretKeys({});
  return json({ data: keys.map(present) });
}

async function createKey({ clients, req }: RouteContext): Promise<Response> {
  const body = parseWith(createSchema, await readJson(req, 4096), "invalid_body", "body");
  const res = await clients.connection.createSecretKey({ name: body.name ?? "", scopes: body.scopes ?? [] });
  if (!res.key) throw new Error("createSecretKey returned no key");
  // The only time the plaintext is ever shown.
  return json({ data: { ...present(res.key), secret_key: res.plaintext } }, 201);
}

/** Revokes a key other than the caller's own; the authenticator forgets what it cached. */
async function revokeKey(authenticator: Authenticator, ctx: RouteContext): Promise<Response> {
  const { clients, params } = ctx;
  const own = ctx.dashboard
    ? ctx.sessionKeyId
    : await authenticator.keyIdOfHeader(ctx.req.headers.get("authorization"));
  if (own !== undefined && own === params.id) throw revokingOwnKey();
  const res = await clients.connection.revokeSecretKey({ id: params.id as string });
  authenticator.clear();
  if (!res.key) throw new Error("revokeSecretKey returned no key");
  return json({ data: present(res.key) });
}

const listDoc: RouteDoc = {
  summary: "List secret keys",
  tags: ["Secret keys"],
  responses: { 200: dataOf(z.array(keyAnswer)) },
  errors: [],
};

const createDoc: RouteDoc = {
  summary: "Create a secret key",
  description: "The plaintext `secret_key` is shown in this answer only.",
  tags: ["Secret keys"],
  body: createSchema,
  responses: { 201: dataOf(keyAnswer.extend({ secret_key: z.string() })) },
  errors: [],
};

const revokeDoc: RouteDoc = {
  summary: "Revoke a secret key",
  description:
    "It stops authenticating within seconds. A key cannot revoke itself (409 `revoking_own_key`): " +
    "revoke it with another key, so that a mistake never locks the caller out silently.",
  tags: ["Secret keys"],
  params: { id: "The key's id." },
  responses: { 200: dataOf(keyAnswer) },
  errors: ["unknown_secret_key", "revoking_own_key"],
};

/** 409: the key (or the dashboard session's key) would revoke itself and lock its caller out. */
function revokingOwnKey(): JunctionError {
  return new JunctionError(
    "revoking_own_key",
    "This is the secret key making the request (or the one this dashboard session logged in with): revoke it with another key.",
    Code.FailedPrecondition,
    [{ location: "path", path: "id", message: "is the calling key" }],
  );
}
