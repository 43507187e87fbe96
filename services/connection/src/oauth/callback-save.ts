import { accountEmailReader, SCOPE_SEPARATORS } from "@junction/providers";
import type { ConnectionServiceContext } from "../context.ts";
import { openCredentials, type StoredCredentials } from "../credentials.ts";
import { emailAddressHash } from "../email-hash.ts";
import { isRefreshError } from "../refresh/credential-refresher.ts";
import { saveConnection } from "../save-connection.ts";
import type { ConnectionErrorRecord } from "../store/records.ts";
import type { CallbackAttempt } from "./callback-attempt.ts";
import type { ExchangedCode } from "./callback-exchange.ts";
import { sessionConfigFor } from "./connect-sessions.ts";
import { connectionBaseUrl } from "./oauth-client.ts";

/** Recorded on a connection whose account email could not be read at authorization. */
export const EMAIL_HASH_UNAVAILABLE = "email_address_hash_unavailable";

/**
 * Saves the authorized connection: the new tokens (a refresh token already held is kept when none came), the
 * connection config, and the account email's hash where the provider has a reader. Answers whether it was new.
 */
export async function saveAuthorizedConnection(
  ctx: ConnectionServiceContext,
  attempt: CallbackAttempt,
  exchanged: ExchangedCode,
  endUser: Record<string, unknown> | null,
) {
  const { st, session, env, integ, existing } = attempt;
  const connectionConfig: Record<string, unknown> = {
    ...sessionConfigFor(session, integ.uniqueKey).connectionConfig,
    ...st.connectionConfig,
    ...exchanged.values,
  };
  const email = await accountEmailHash(ctx, attempt, exchanged);
  if (email.hash) connectionConfig.emailAddressHash = email.hash;
  const hashProblem = email.problem;
  return saveConnection(ctx, {
    env,
    integ,
    connectionId: st.connectionId,
    credentials: storedCredentials(ctx, attempt, exchanged, existing),
    connectionConfig,
    metadata: {},
    endUser,
    tags: session.tags,
    webhookUrlOverride: session.webhookUrlOverride,
    reviseErrors: (errs) => {
      const kept = errs.filter((e) => !isRefreshError(e.type) && e.type !== EMAIL_HASH_UNAVAILABLE);
      return hashProblem ? [hashProblem, ...kept] : kept;
    },
  });
}

function storedCredentials(
  ctx: ConnectionServiceContext,
  { st, template }: CallbackAttempt,
  { token, client }: ExchangedCode,
  existing: CallbackAttempt["existing"],
): StoredCredentials {
  const at = ctx.clock.now();
  const previous = existing?.credentialsEnc ? openCredentials(ctx.encryptor, existing, existing.credentialsEnc) : null;
  return {
    type: "OAUTH2",
    accessToken: token.accessToken,
    // A re-authorization often brings no new refresh token: the one held stays valid (spec: Authentication 2).
    refreshToken: token.refreshToken ?? previous?.refreshToken ?? "",
    expiresAt: token.expiresIn ? at + token.expiresIn * 1000 : null,
    raw: token.raw,
    scope: token.scope ?? st.scopes.join(SCOPE_SEPARATORS[template.scopeSeparator]),
    ...(client.testCredentials ? { testCredentials: true } : {}),
  };
}

/**
 * The account email's hash (spec: Versioning 2 and Webhook-to-connection matching rule 2: on every successful
 * authorization), or the problem recorded on the connection when it could not be read.
 */
async function accountEmailHash(
  ctx: ConnectionServiceContext,
  { st, integ, template }: CallbackAttempt,
  { token, client, sessionConfig, values }: ExchangedCode,
): Promise<{ hash?: string; problem?: ConnectionErrorRecord }> {
  // The grant as the token answer states it (RFC 6749 section 5.1), else the scopes asked for.
  const granted = token.scope ? token.scope.split(" ").filter(Boolean) : st.scopes;
  const readAccountEmail = accountEmailReader(template, granted);
  if (!readAccountEmail) return {};
  const primary = await readAccountEmail(
    ctx.fetch,
    connectionBaseUrl(integ, template, client.baseUrl, { ...sessionConfig, ...values }),
    token.accessToken,
    ctx.oauth.tokenRequestTimeoutMs,
  );
  if (primary.ok) return { hash: emailAddressHash(primary.email) };
  return {
    problem: {
      type: EMAIL_HASH_UNAVAILABLE,
      message: `connection_config.emailAddressHash was not written: ${primary.reason}. Notifications are matched by metadata.emailAddress or metadata.email instead; set one, or authorize again.`,
      at: ctx.clock.now(),
    },
  };
}
