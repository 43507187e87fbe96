import type { AdapterFetch } from "./adapter.ts";

/**
 * GETs an upstream JSON document with a fresh access token and a real-time timeout, for the readers of
 * an account's email; the failure says why in words naming `api` (never the token).
 */
export async function fetchAccountJson(
  fetchImpl: AdapterFetch,
  url: string,
  accessToken: string,
  timeoutMs: number,
  api: string,
): Promise<{ ok: true; body: unknown } | { ok: false; reason: string }> {
  try {
    const res = await fetchImpl(url, {
      headers: { authorization: `Bearer ${accessToken}`, accept: "application/json" },
      redirect: "manual",
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await res.text();
    if (!res.ok) return { ok: false, reason: `the ${api} answered HTTP ${res.status}` };
    try {
      return { ok: true, body: JSON.parse(text) };
    } catch {
      return { ok: false, reason: `the ${api} answered something that is not JSON` };
    }
  } catch (err) {
    const name = (err as Error).name;
    if (name === "TimeoutError" || name === "AbortError") {
      return { ok: false, reason: `the ${api} did not answer within ${timeoutMs} ms` };
    }
    return { ok: false, reason: `the ${api} could not be reached` };
  }
}
