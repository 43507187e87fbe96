import { sha256Hex, unauthenticated } from "@junction/platform";
import type { GatewayClients } from "../clients.ts";

const CACHE_MS = 5000;
const MAX_CACHED = 1000;

/**
 * Secret-key authentication: `Authorization: Bearer <secret key>`. Valid keys are cached by hash for a
 * few seconds (a revoked key stops working within CACHE_MS); invalid ones are never cached.
 */
export class Authenticator {
  private readonly cache = new Map<string, { environmentId: string; until: number }>();

  constructor(
    private readonly clients: GatewayClients,
    private readonly now: () => number = Date.now,
  ) {}

  /** Returns the environment id, or throws a 401-class error with a stable code. */
  async authenticate(req: Request): Promise<string> {
    const header = req.headers.get("authorization");
    if (!header || header.trim() === "") {
      throw unauthenticated("missing_auth_header", "Authentication failed: send Authorization: Bearer <secret key>.");
    }
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match) {
      throw unauthenticated(
        "malformed_auth_header",
        "Authentication failed: the Authorization header must be 'Bearer <secret key>'.",
      );
    }
    const key = match[1] as string;
    const hash = sha256Hex(key);
    const cached = this.cache.get(hash);
    const now = this.now();
    if (cached && cached.until > now) return cached.environmentId;
    const res = await this.clients.connection.verifySecretKey({ secretKey: key });
    if (!res.valid) {
      this.cache.delete(hash);
      throw unauthenticated("unknown_account", "Authentication failed: the secret key is not valid or was revoked.");
    }
    if (this.cache.size >= MAX_CACHED) this.cache.clear();
    this.cache.set(hash, { environmentId: res.environmentId, until: now + CACHE_MS });
    return res.environmentId;
  }

  /** Forgets cached keys (after a revocation through this gateway). */
  clear(): void {
    this.cache.clear();
  }
}
