import type { AccountEmailReader } from "../adapter.ts";
import { fetchAccountJson } from "../account-json.ts";

/**
 * Reads the primary calendar's identifier, the user's email (spec: upstream calendar API,
 * GET /v3/users/me/calendarList/primary), with a fresh access token and a real-time timeout.
 */
export const readPrimaryCalendarId: AccountEmailReader = async (fetchImpl, baseUrl, accessToken, timeoutMs) => {
  const url = `${baseUrl.replace(/\/+$/, "")}/calendar/v3/users/me/calendarList/primary`;
  const got = await fetchAccountJson(fetchImpl, url, accessToken, timeoutMs, "calendar API");
  if (!got.ok) return got;
  const id = (got.body as { id?: unknown } | null)?.id;
  if (typeof id !== "string" || id.trim() === "") {
    return { ok: false, reason: "the primary calendar has no id" };
  }
  return { ok: true, email: id };
};
