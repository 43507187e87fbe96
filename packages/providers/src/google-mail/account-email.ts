import type { AccountEmailReader } from "../adapter.ts";
import { fetchAccountJson } from "../account-json.ts";

/**
 * Reads the mailbox's address: GET /gmail/v1/users/me/profile, its `emailAddress`
 * (https://developers.google.com/workspace/gmail/api/reference/rest/v1/users/getProfile), the address
 * every Pub/Sub push of the mailbox names, with a fresh access token and a real-time timeout.
 */
export const readGmailAddress: AccountEmailReader = async (fetchImpl, baseUrl, accessToken, timeoutMs) => {
  const url = `${baseUrl.replace(/\/+$/, "")}/gmail/v1/users/me/profile`;
  const got = await fetchAccountJson(fetchImpl, url, accessToken, timeoutMs, "Gmail profile API");
  if (!got.ok) return got;
  const address = (got.body as { emailAddress?: unknown } | null)?.emailAddress;
  if (typeof address === "string" && address.trim() !== "") return { ok: true, email: address };
  return { ok: false, reason: "the Gmail profile names no emailAddress" };
};
