/** Error bodies shaped exactly like Google's, so Junction's error mapping is tested against the real thing. */

const STATUS_NAMES: Record<number, string> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  409: "ABORTED",
  410: "FAILED_PRECONDITION",
  429: "RESOURCE_EXHAUSTED",
  500: "INTERNAL",
  503: "UNAVAILABLE",
};

export interface GoogleErrorItem {
  domain?: string;
  reason: string;
  message: string;
  location?: string;
  locationType?: string;
}

/** A Google API (v3/v1 JSON) error response. */
export function googleApiError(code: number, message: string, item: GoogleErrorItem): Response {
  const body = {
    error: {
      code,
      message,
      errors: [{ message: item.message, domain: item.domain ?? "global", reason: item.reason, ...locationOf(item) }],
      status: STATUS_NAMES[code] ?? "UNKNOWN",
    },
  };
  return Response.json(body, { status: code });
}

function locationOf(item: GoogleErrorItem): Partial<GoogleErrorItem> {
  return item.location ? { location: item.location, locationType: item.locationType ?? "parameter" } : {};
}

/** The 400 Google answers for a bad field in a request body. */
export function invalidArgument(message: string, reason = "invalid", domain = "global"): Response {
  return googleApiError(400, message, { domain, reason, message });
}

export function notFound(message = "Not Found"): Response {
  return googleApiError(404, message, { reason: "notFound", message });
}

/** Google's 401 for a missing, unknown, expired or revoked access token. */
export function unauthenticated(): Response {
  const response = googleApiError(
    401,
    "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.",
    {
      message: "Invalid Credentials",
      domain: "global",
      reason: "authError",
      location: "Authorization",
      locationType: "header",
    },
  );
  response.headers.set("www-authenticate", 'Bearer realm="https://accounts.google.com/", error="invalid_token"');
  return response;
}

export function insufficientScopes(): Response {
  return googleApiError(403, "Request had insufficient authentication scopes.", {
    reason: "insufficientPermissions",
    message: "Insufficient Permission",
  });
}

/** An OAuth token-endpoint error (RFC 6749 section 5.2 shape, Google's descriptions). */
export function oauthError(status: number, error: string, description: string): Response {
  return Response.json(
    { error, error_description: description },
    { status, headers: { "cache-control": "no-store", pragma: "no-cache" } },
  );
}
