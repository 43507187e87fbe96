import { type Child, h } from "./dom.ts";

/** An error answered by the API in Junction's one error body. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly fieldErrors: { path: string; message: string }[] = [],
  ) {
    super(message);
  }
}

const meta = (name: string) => document.querySelector<HTMLMetaElement>(`meta[name="${name}"]`)?.content ?? "";

/** The CSRF token and base URL the dashboard page was served with. */
export const page = { csrf: meta("junction-csrf"), baseUrl: meta("junction-base-url") };

/**
 * Calls the REST API through /dashboard/api (same origin, the session cookie, the CSRF header on
 * writes). A lost session sends the browser to the login page.
 */
export async function api<T = unknown>(
  method: string,
  path: string,
  body?: unknown,
  extraHeaders: Record<string, string> = {},
): Promise<T> {
  const headers: Record<string, string> = { accept: "application/json", ...extraHeaders };
  if (method !== "GET") headers["x-junction-csrf"] = page.csrf;
  if (body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(`/dashboard/api${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: "same-origin",
  });
  const text = await res.text();
  let parsed: unknown = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = null;
  }
  if (res.ok) return parsed as T;
  const err = (parsed as { error?: { code?: string; message?: string; errors?: unknown } } | null)?.error;
  if (res.status === 401 && err?.code === "dashboard_login_required") {
    location.assign("/dashboard/login");
  }
  throw new ApiError(
    res.status,
    err?.code ?? "http_error",
    err?.message ?? `The request failed with HTTP ${res.status}.`,
    Array.isArray(err?.errors) ? (err.errors as { path: string; message: string }[]) : [],
  );
}

/** An error as a box: the message, each field error, and the stable code. */
export function errorBox(err: unknown, id?: string): HTMLElement {
  if (err instanceof ApiError) {
    const items: Child[] = err.fieldErrors.map((f) => h("li", null, h("code", null, f.path), ": ", f.message));
    return h(
      "div",
      { class: "error", role: "alert", id, "data-code": err.code },
      err.message,
      items.length > 0 ? h("ul", null, items) : null,
      h("div", { class: "muted" }, `code: ${err.code} · HTTP ${err.status}`),
    );
  }
  return h("div", { class: "error", role: "alert", id }, err instanceof Error ? err.message : String(err));
}

/** Query string for API paths, leaving out empty values. */
export function qs(query: Record<string, string | number | boolean | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== "" && v !== false) q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : "";
}

/** Ends the session (the cookie is cleared by the answer). */
export async function logout(): Promise<void> {
  await fetch("/dashboard/logout", { method: "POST", headers: { "x-junction-csrf": page.csrf } });
}
