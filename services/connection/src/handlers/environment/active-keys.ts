import type { ConnectionServiceContext } from "../../context.ts";
import type { SecretKeyRecord } from "../../store/records.ts";

const KEY_CACHE_MS = 2000;

/** The environment's active secret keys, cached briefly: verification runs on every API request. */
export class ActiveKeys {
  private cache: { at: number; keys: SecretKeyRecord[] } | undefined;

  constructor(private readonly ctx: ConnectionServiceContext) {}

  async of(envId: string): Promise<SecretKeyRecord[]> {
    const now = this.ctx.clock.now();
    if (!this.cache || now - this.cache.at > KEY_CACHE_MS) {
      const keys = (await this.ctx.store.listSecretKeys(envId)).filter((k) => k.revokedAt === null);
      this.cache = { at: now, keys };
    }
    return this.cache.keys;
  }

  /** A key was created or revoked: the next verification reads the store. */
  forget(): void {
    this.cache = undefined;
  }
}
