import type { AccountEmailReader } from "../adapter.ts";

/**
 * Reads the signed-in user's email: GET /v1.0/me, its `mail`, or its `userPrincipalName` when the
 * mailbox has no SMTP address set (https://learn.microsoft.com/en-us/graph/api/user-get), with a fresh
 * access token and a real-time timeout.
 */
export const readGraphAccountEmail: AccountEmailReader = async (fetchImpl, baseUrl, accessToken, timeoutMs) => {
  const url = `${baseUrl.replace(/\/+$/, "")}/v1.0/me?$select=mail,userPrincipalName`;
  try {
    const res = await fetchImpl(url, {
      headers: { authorization: `Bearer ${accessToken}`, accept: "application/json" },
      redirect: "manual",
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await res.text();
    if (!res.ok) return { ok: false, reason: `the profile API answered HTTP ${res.status}` };
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return { ok: false, reason: "the profile API answered something that is not JSON" };
    }
    const me = (body ?? {}) as { mail?: unknown; userPrincipalName?: unknown };
    for (const candidate of [me.mail, me.userPrincipalName]) {
      if (typeof candidate === "string" && candidate.trim() !== "") return { ok: true, email: candidate };
    }
    return { ok: false, reason: "the user's profile has neither mail nor userPrincipalName" };
  } catch (err) {
    const name = (err as Error).name;
    if (name === "TimeoutError" || name === "AbortError") {
      return { ok: false, reason: `the profile API did not answer within ${timeoutMs} ms` };
    }
    return { ok: false, reason: "the profile API could not be reached" };
  }
};
