import { constantTimeEqual, type Encryptor, secretContext } from "@junction/platform";

/** A channel token as stored: sealed (for sending back upstream) and as a keyed digest (for checks). */
export interface SealedToken {
  /** `enc:v2:…`, bound to the channel's environment and id. */
  token: string;
  /** `mac:v1:…`, bound the same way. */
  tokenDigest: string;
}

/** What of a channel the token belongs to. */
interface TokenRow {
  environmentId: string;
  id: string;
  token: string | null;
  tokenDigest: string | null;
}

/**
 * Channel tokens at rest (Google's channel token, Graph's clientState): a shared secret the upstream
 * echoes on every notification, so stored as credentials are, sealed to its row, with a keyed digest
 * beside it. A notification's token is checked against the digest (one HMAC); the sealed copy is opened
 * only to call the upstream (renew, stop). A row stored before tokens were sealed holds the token as given
 * and no digest until the service seals it at start (`sealStoredTokens`); it is read as given meanwhile.
 */
export class ChannelTokens {
  constructor(private readonly encryptor: Encryptor) {}

  /** The stored form of `token` for a channel; nulls for none (""). */
  seal(
    environmentId: string,
    channelId: string,
    token: string | null,
  ): SealedToken | { token: null; tokenDigest: null } {
    if (!token) return { token: null, tokenDigest: null };
    const context = tokenContext(environmentId, channelId);
    return { token: this.encryptor.encrypt(token, context), tokenDigest: this.encryptor.digest(token, context) };
  }

  /** The channel's token as the upstream knows it ("" for none). */
  open(channel: TokenRow): string {
    if (channel.token === null) return "";
    if (channel.tokenDigest === null) return channel.token;
    return this.encryptor.decrypt(channel.token, tokenContext(channel.environmentId, channel.id));
  }

  /** Whether a notification's token is the channel's; a channel created without one takes any. */
  matches(channel: TokenRow, given: string): boolean {
    if (channel.token === null) return true;
    if (channel.tokenDigest === null) return constantTimeEqual(channel.token, given);
    return this.encryptor.digestMatches(channel.tokenDigest, given, tokenContext(channel.environmentId, channel.id));
  }

  /** The row sealed again under the current key when it is not already; null when it is current. */
  resealed(channel: TokenRow): SealedToken | null {
    if (channel.token === null) return null;
    const current =
      channel.tokenDigest !== null &&
      !this.encryptor.isStale(channel.token) &&
      !this.encryptor.isStaleDigest(channel.tokenDigest);
    return current ? null : (this.seal(channel.environmentId, channel.id, this.open(channel)) as SealedToken);
  }
}

function tokenContext(environmentId: string, channelId: string): string {
  return secretContext("channel-token", environmentId, channelId);
}
