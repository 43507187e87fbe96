/** `{key}` in a definition's URLs: letters, digits and _, starting with a letter. */
export const PLACEHOLDER_PATTERN = /\{([A-Za-z][A-Za-z0-9_]*)\}/g;

/** A value filling a placeholder inside a URL: one host label or path segment (RFC 3986 unreserved), never "." or "..". */
const SEGMENT = /^[A-Za-z0-9._~-]{1,255}$/;

export type PlaceholderFill =
  | { ok: true; url: string }
  | { ok: false; key: string; problem: "missing" | "not_a_segment" | "not_a_url" | "malformed" };

/** The placeholder keys a URL holds, in order, de-duplicated. */
export function placeholderKeys(url: string): string[] {
  return [...new Set([...url.matchAll(PLACEHOLDER_PATTERN)].map((m) => m[1] as string))];
}

/**
 * Fills `{key}` placeholders from `values`. A placeholder that starts the URL (`{instance_url}/services`)
 * takes a whole http(s) URL without query or fragment; any other takes one host label or path segment, so
 * a value can never move a URL to another host or path than its definition says.
 */
export function fillPlaceholders(url: string, values: Readonly<Record<string, unknown>>): PlaceholderFill {
  let failure: PlaceholderFill | null = null;
  const filled = url.replace(PLACEHOLDER_PATTERN, (_whole, key: string, offset: number) => {
    if (failure) return "";
    const raw = values[key];
    const value = typeof raw === "string" ? raw : typeof raw === "number" ? String(raw) : "";
    if (value === "") {
      failure = { ok: false, key, problem: "missing" };
      return "";
    }
    if (offset === 0) {
      if (!isBaseUrl(value)) failure = { ok: false, key, problem: "not_a_url" };
      return value.replace(/\/+$/, "");
    }
    if (!SEGMENT.test(value) || value === "." || value === "..") failure = { ok: false, key, problem: "not_a_segment" };
    return value;
  });
  if (failure) return failure;
  if (filled.includes("{") || filled.includes("}")) return { ok: false, key: "", problem: "malformed" };
  return { ok: true, url: filled };
}

/** What a placeholder problem asks of the operator or the connection, in words. */
export function describePlaceholderProblem(problem: Exclude<PlaceholderFill, { ok: true }>["problem"]): string {
  switch (problem) {
    case "missing":
      return "is required by the provider's URLs and was not given";
    case "not_a_segment":
      return "must be one URL path segment: letters, digits and . _ ~ - only";
    case "not_a_url":
      return "must be an http(s) URL without query or fragment (e.g. https://example.my.site.com)";
    case "malformed":
      return "has a placeholder that is not {name} (letters, digits and _)";
  }
}

function isBaseUrl(value: string): boolean {
  try {
    const u = new URL(value);
    return (u.protocol === "https:" || u.protocol === "http:") && u.search === "" && u.hash === "" && u.username === "";
  } catch {
    return false;
  }
}
