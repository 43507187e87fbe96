/** A JSON response. */
export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });
}

/** Unix milliseconds (bigint from protobuf) as an ISO-8601 string, or null for 0. */
export function iso(ms: bigint | number): string | null {
  const n = Number(ms);
  return n > 0 ? new Date(n).toISOString() : null;
}
