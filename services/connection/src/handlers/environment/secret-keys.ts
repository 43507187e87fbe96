import type {
  CreateSecretKeyRequest,
  RevokeSecretKeyRequest,
  VerifySecretKeyRequest,
} from "@junction/contracts/connection/v1/connection_service_pb";
import { constantTimeEqual, newId, randomToken, SECRET_KEY_MIN_LENGTH, sha256Hex } from "@junction/platform";
import type { ConnectionServiceContext } from "../../context.ts";
import { errors } from "../../errors.ts";
import { toSecretKey } from "../../mappers.ts";
import type { SecretKeyRecord } from "../../store/records.ts";
import type { ActiveKeys } from "./active-keys.ts";

/** VerifySecretKey: whether the key is one of the environment's active keys, and which. */
export async function verifySecretKey(ctx: ConnectionServiceContext, active: ActiveKeys, req: VerifySecretKeyRequest) {
  const env = await ctx.environment();
  const hash = sha256Hex(req.secretKey);
  // Compare against every active key so that timing does not reveal which, or how many, matched.
  let match: SecretKeyRecord | undefined;
  for (const key of await active.of(env.id)) {
    if (constantTimeEqual(key.hash, hash)) match = key;
  }
  if (!match) return { valid: false };
  await ctx.store.touchSecretKey(env.id, match.id, ctx.clock.now());
  return { valid: true, environmentId: env.id, keyId: match.id, keyName: match.name, scopes: match.scopes };
}

/** CreateSecretKey: a new key (its plaintext answered once), or the active key that has the same plaintext. */
export async function createSecretKey(ctx: ConnectionServiceContext, active: ActiveKeys, req: CreateSecretKeyRequest) {
  const env = await ctx.environment();
  const plaintext = req.plaintext || `jct_sk_${randomToken(32)}`;
  if (plaintext.length < SECRET_KEY_MIN_LENGTH) {
    throw errors.invalidField("plaintext", `must be at least ${SECRET_KEY_MIN_LENGTH} characters`);
  }
  const hash = sha256Hex(plaintext);
  const existing = (await ctx.store.listSecretKeys(env.id)).find((k) => k.hash === hash && k.revokedAt === null);
  if (existing) return { key: toSecretKey(existing), plaintext: "" };
  const now = ctx.clock.now();
  const rec: SecretKeyRecord = {
    id: newId("key", now),
    environmentId: env.id,
    name: req.name || "default",
    prefix: plaintext.slice(0, 11),
    hash,
    createdAt: now,
    revokedAt: null,
    scopes: [...new Set(req.scopes)],
    lastUsedAt: null,
  };
  await ctx.store.insertSecretKey(rec);
  active.forget();
  return { key: toSecretKey(rec), plaintext };
}

/** ListSecretKeys: every key of the environment, revoked ones included, never a plaintext. */
export async function listSecretKeys(ctx: ConnectionServiceContext) {
  const env = await ctx.environment();
  return { keys: (await ctx.store.listSecretKeys(env.id)).map(toSecretKey) };
}

/** RevokeSecretKey: the key no longer verifies. */
export async function revokeSecretKey(ctx: ConnectionServiceContext, active: ActiveKeys, req: RevokeSecretKeyRequest) {
  const env = await ctx.environment();
  const rec = await ctx.store.revokeSecretKey(env.id, req.id, ctx.clock.now());
  if (!rec) throw errors.unknownSecretKey(req.id);
  active.forget();
  return { key: toSecretKey(rec) };
}
