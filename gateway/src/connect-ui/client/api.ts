/** The session, integrations and providers as the gateway answers them (Nango's shapes). */
export interface Session {
  allowed_integrations?: string[];
  isReconnecting?: true;
  websocketsPath: string;
  integrations_config_defaults?: Record<string, { connection_config: Record<string, unknown> }>;
  overrides?: Record<string, { docs_connect?: string }>;
}
export interface Integration {
  unique_key: string;
  display_name: string;
  provider: string;
}
export interface ConnectField {
  key: string;
  label: string;
  docs_url: string;
  secret: boolean;
}
export interface Provider {
  name: string;
  display_name: string;
  auth_mode: string;
  docs: string;
  connect_fields: ConnectField[];
}

/** An answer that is not 2xx: its status and stable code (or `network_error` when none came). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The gateway's base URL: the page is served at {base}/connect/. The UI calls only the Junction that
 * serves it (an `apiURL` in its address is not followed: the session token goes nowhere else).
 */
export const apiBase = new URL("../", window.location.href).href.replace(/\/$/, "");

async function call<T>(path: string, token: string, init: RequestInit = {}): Promise<T> {
  let res: Response;
  try {
    res = await fetch(`${apiBase}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${token}`, accept: "application/json", ...init.headers },
    });
  } catch {
    throw new ApiError(0, "network_error", "Junction could not be reached.");
  }
  const body = (await res.json().catch(() => ({}))) as { data?: T; error?: { code?: string; message?: string } };
  if (!res.ok) {
    throw new ApiError(res.status, body.error?.code ?? "unknown_error", body.error?.message ?? res.statusText);
  }
  return (body.data ?? body) as T;
}

export const getSession = (token: string) => call<Session>("/connect/session", token);
export const getIntegrations = (token: string) => call<Integration[]>("/integrations", token);
export const getProvider = (token: string, name: string) =>
  call<Provider>(`/providers/${encodeURIComponent(name)}`, token);

/** Connects an API-key, basic or client-credentials integration with the form's fields. */
export function submitFields(
  token: string,
  key: string,
  fields: Record<string, string>,
): Promise<{ connectionId: string; providerConfigKey: string }> {
  return call(`/connect/form/${encodeURIComponent(key)}`, token, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ connect_session_token: token, ...fields }).toString(),
  });
}
