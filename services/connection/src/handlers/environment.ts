import { create } from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";
import { type ConnectionService, EnvironmentSchema } from "@junction/contracts/connection/v1/connection_service_pb";
import { constantTimeEqual, newId, randomToken, SECRET_KEY_MIN_LENGTH, sha256Hex } from "@junction/platform";
import type { ConnectionServiceContext } from "../context.ts";
import { errors } from "../errors.ts";
import { toSecretKey } from "../mappers.ts";
import type { SecretKeyRecord } from "../store/records.ts";

const KEY_CACHE_MS = 2000;

/** Environment and secret keys. */
export function environmentHandlers(ctx: ConnectionServiceContext): Partial<ServiceImpl<typeof ConnectionService>> {
  // Active key hashes, cached briefly: verification runs on every API request.
  let cache: { at: number; keys: SecretKeyRecord[] } | undefined;
  const activeKeys = async (envId: string) => {
    const now = ctx.clock.now();
    if (!cache || now - cache.at > KEY_CACHE_MS) {
      const keys = (await ctx.store.listSecretKeys(envId)).filter((k) => k.revokedAt === null);
      cache = { at: now, keys };
    }
    return cache.keys;
  };

  return {
    async getEnvironment() {
      const env = await ctx.environment();
      return {
        environment: create(EnvironmentSchema, {
          id: env.id,
          name: env.name,
          baseUrl: ctx.baseUrl,
          credentialReads: ctx.settings.credentialReads,
        }),
      };
    },

    async verifySecretKey(req) {
      const env = await ctx.environment();
      const hash = sha256Hex(req.secretKey);
      // Compare against every active key so that timing does not reveal which, or how many, matched.
      let match: SecretKeyRecord | undefined;
      for (const key of await activeKeys(env.id)) {
        if (constantTimeEqual(key.hash, hash)) match = key;
      }
      if (!match) return { valid: false };
      await ctx.store.touchSecretKey(env.id, match.id, ctx.clock.now());
      return { valid: true, environmentId: env.id, keyId: match.id, keyName: match.name, scopes: match.scopes };
    },

    async createSecretKey(req) {
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
      cache = undefined;
      return { key: toSecretKey(rec), plaintext };
    },

    async listSecretKeys() {
      const env = await ctx.environment();
      return { keys: (await ctx.store.listSecretKeys(env.id)).map(toSecretKey) };
    },

    async revokeSecretKey(req) {
      const env = await ctx.environment();
      const rec = await ctx.store.revokeSecretKey(env.id, req.id, ctx.clock.now());
      if (!rec) throw errors.unknownSecretKey(req.id);
      cache = undefined;
      return { key: toSecretKey(rec) };
    },
  };
}
