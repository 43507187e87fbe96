import type { AccountEmailReader } from "../adapter.ts";

/**
 * Reads the primary calendar's identifier, the user's email (spec: upstream calendar API,
 * GET /v3/users/me/calendarList/primary), with a fresh access token and a real-time timeout.
 */
export const readPrimaryCalendarId: AccountEmailReader = async (fetchImpl, baseUrl, accessToken, timeoutMs) => {
  const url = `${baseUrl.replace(/\/+$/, "")}/calendar/v3/users/me/calendarList/primary`;
  try {
    const res = await fetchImpl(url, {
      headers: { authorization: `Bearer ${accessToken}`, accept: "application/json" },
      redirect: "manual",
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await res.text();
    if (!res.ok) return { ok: false, reason: `the calendar API answered HTTP ${res.status}` };
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return { ok: false, reason: "the calendar API answered something that is not JSON" };
    }
    const id = (body as { id?: unknown } | null)?.id;
    if (typeof id !== "string" || id.trim() === "") {
      return { ok: false, reason: "the primary calendar has no id" };
    }
    return { ok: true, email: id };
  } catch (err) {
    const name = (err as Error).name;
    if (name === "TimeoutError" || name === "AbortError") {
      return { ok: false, reason: `the calendar API did not answer within ${timeoutMs} ms` };
    }
    return { ok: false, reason: "the calendar API could not be reached" };
  }
};
