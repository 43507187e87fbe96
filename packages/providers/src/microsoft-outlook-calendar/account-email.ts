import type { AccountEmailReader } from "../adapter.ts";
import { fetchAccountJson } from "../account-json.ts";

/**
 * Reads the signed-in user's email: GET /v1.0/me, its `mail`, or its `userPrincipalName` when the
 * mailbox has no SMTP address set (https://learn.microsoft.com/en-us/graph/api/user-get), with a fresh
 * access token and a real-time timeout.
 */
export const readGraphAccountEmail: AccountEmailReader = async (fetchImpl, baseUrl, accessToken, timeoutMs) => {
  const url = `${baseUrl.replace(/\/+$/, "")}/v1.0/me?$select=mail,userPrincipalName`;
  const got = await fetchAccountJson(fetchImpl, url, accessToken, timeoutMs, "profile API");
  if (!got.ok) return got;
  const me = (got.body ?? {}) as { mail?: unknown; userPrincipalName?: unknown };
  for (const candidate of [me.mail, me.userPrincipalName]) {
    if (typeof candidate === "string" && candidate.trim() !== "") return { ok: true, email: candidate };
  }
  return { ok: false, reason: "the user's profile has neither mail nor userPrincipalName" };
};
