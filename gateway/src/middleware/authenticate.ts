import { ExpiringCache, SharedLoads, unauthenticated } from "@junction/platform";
import type { GatewayClients } from "../clients.ts";
import { ADMIN_SCOPE, type ApiKeyScope, allows, insufficientScope } from "./scopes.ts";

/** The secret key that authenticated a request: its id and name (its operator's label), never the key. */
export interface AuthenticatedKey {
  id: string;
  name: string;
}

/** What a valid key grants: its environment, and its scopes (none: full access). */
export interface Grant {
  environmentId: string;
  /** The key's id (never the key). */
  keyId: string;
  /** The key's id and name, one object per cached key (handed to routes as it is). */
  key: AuthenticatedKey;
  scopes: readonly string[];
}

const CACHE_MS = 5000;
/** Entries this close to expiry are re-verified in the background while still being served. */
const REFRESH_AHEAD_MS = 1000;
const MAX_CACHED = 1000;

/**
 * Secret-key authentication: `Authorization: Bearer <secret key>`. Keys are verified by the connection
 * service (which stores only hashes) and valid ones are remembered in this process for a few seconds:
 * a revoked key stops working within CACHE_MS. The cache is keyed by the presented key itself, which
 * the gateway holds in memory for the request anyway; nothing of it is stored or logged. Invalid keys
 * are never cached. Concurrent requests with the same key share one verification, and an entry about
 * to expire is re-verified by one request in the background, so a busy gateway never stalls on expiry.
 */
export class Authenticator {
  /** Grants by secret key. */
  private readonly cache: ExpiringCache<string, Grant>;
  private readonly inFlight = new SharedLoads<string, Grant>();

  constructor(
    private readonly clients: GatewayClients,
    private readonly now: () => number = Date.now,
  ) {
    this.cache = new ExpiringCache({
      maxEntries: MAX_CACHED,
      now,
      reloadAheadMs: REFRESH_AHEAD_MS,
      reload: ({ key }) => {
        this.verify(key).catch(() => this.cache.delete(key));
      },
    });
  }

  /** Returns the environment id, or throws a 401-class error with a stable code. */
  async authenticate(req: Request, scope: ApiKeyScope = ADMIN_SCOPE): Promise<string> {
    return this.environmentOfHeader(req.headers.get("authorization"), scope);
  }

  /**
   * As `authenticate`, from the Authorization header's value (the gateway reads the headers once); a
   * cached key is answered synchronously (no promise on the hot path) and a malformed header throws
   * synchronously. A key limited to scopes that do not grant `scope` is refused with 403
   * `insufficient_scope`.
   */
  environmentOfHeader(
    header: string | string[] | null | undefined,
    scope: ApiKeyScope = ADMIN_SCOPE,
  ): string | Promise<string> {
    const grant = this.grantOfHeader(header, scope);
    return grant instanceof Promise ? grant.then((g) => g.environmentId) : grant.environmentId;
  }

  /** As `environmentOfHeader`, answering the whole grant (its environment and its key's id and name). */
  grantOfHeader(
    header: string | string[] | null | undefined,
    scope: ApiKeyScope = ADMIN_SCOPE,
  ): Grant | Promise<Grant> {
    if (typeof header !== "string") header = header?.join(", ");
    if (!header || header.trim() === "") {
      throw unauthenticated("missing_auth_header", "Authentication failed: send Authorization: Bearer <secret key>.");
    }
    const key = bearerKey(header);
    if (key === undefined) {
      throw unauthenticated(
        "malformed_auth_header",
        "Authentication failed: the Authorization header must be 'Bearer <secret key>'.",
      );
    }
    const now = this.now();
    const cached = this.cache.fresh(key, now);
    if (cached !== undefined) return allowed(this.cache.serve(cached, now), scope);
    return this.verify(key).then((grant) => allowed(grant, scope));
  }

  /**
   * The id of the key in an Authorization header that already authenticated its request (read from
   * the cache, verified again when it has expired since).
   */
  async keyIdOfHeader(header: string | null | undefined): Promise<string | undefined> {
    const key = header ? bearerKey(header) : undefined;
    if (key === undefined) return undefined;
    const cached = this.cache.fresh(key, this.now());
    return (cached?.value ?? (await this.verify(key))).keyId;
  }

  /** Forgets cached keys (after a revocation through this gateway). */
  clear(): void {
    this.cache.clear();
  }

  private verify(key: string): Promise<Grant> {
    return this.inFlight.run(key, () => this.ask(key));
  }

  private async ask(key: string): Promise<Grant> {
    const res = await this.clients.connection.verifySecretKey({ secretKey: key });
    if (!res.valid) {
      this.cache.delete(key);
      throw unauthenticated("unknown_account", "Authentication failed: the secret key is not valid or was revoked.");
    }
    const grant = {
      environmentId: res.environmentId,
      keyId: res.keyId,
      key: { id: res.keyId, name: res.keyName },
      scopes: res.scopes ?? [],
    };
    this.cache.set(key, grant, this.now() + CACHE_MS);
    return grant;
  }
}

function allowed(grant: Grant, scope: ApiKeyScope): Grant {
  if (!allows(grant.scopes, scope)) throw insufficientScope(scope);
  return grant;
}

const BEARER_RE = /^Bearer\s+(\S+)\s*$/i;
const WHITESPACE_RE = /\s/;

/** The last header read and its key: a caller sends the same one request after request. */
let lastHeader = "";
let lastKey: string | undefined;

/**
 * The key of `Bearer <key>` (any case, any spacing), as BEARER_RE reads it; the common spelling without a
 * regex match, and the last header's again without reading it (the same key string also keeps its hash
 * for the cache's lookup).
 */
function bearerKey(header: string): string | undefined {
  if (header === lastHeader) return lastKey;
  lastKey = readBearerKey(header);
  lastHeader = header;
  return lastKey;
}

function readBearerKey(header: string): string | undefined {
  if (header.startsWith("Bearer ")) {
    const key = header.slice(7);
    if (key !== "" && !WHITESPACE_RE.test(key)) return key;
  }
  return BEARER_RE.exec(header)?.[1];
}
