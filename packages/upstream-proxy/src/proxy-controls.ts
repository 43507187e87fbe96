import { type FieldError, invalidArgument, type JunctionError } from "@junction/platform";
import { type HeaderRecord, headerRecord } from "./header-record.ts";
import { NO_BODY, type OutgoingBody } from "./request-body.ts";

/** What the caller asks of the proxy through Nango's control headers (spec: Proxy rules 1). */
export interface ProxyControls {
  providerConfigKey: string;
  connectionId: string;
  /** `Retries`; undefined when not sent. */
  retries: number | undefined;
  /** `Retry-On`: statuses retried besides 429 and 5xx; empty when not sent. */
  retryOn: ReadonlySet<number>;
  /** `Base-Url-Override`; undefined when not sent. */
  baseUrlOverride: string | undefined;
  /** `Decompress: true`. */
  decompress: boolean;
}

const RETRY_ON_RE = /^\s*\d{3}\s*(?:,\s*\d{3}\s*)*$/;
/** `retryOn` of every request without `Retry-On`. */
const NO_STATUSES: ReadonlySet<number> = new Set<number>();

/** A header's trimmed value; an empty one counts as absent. */
function value(headers: HeaderRecord, name: string): string | undefined {
  const v = headers[name];
  if (typeof v !== "string") return undefined;
  const trimmed = v.trim();
  return trimmed === "" ? undefined : trimmed;
}

/**
 * One call of the proxy engine: the caller's controls, and what is called. One object per request, made
 * by readUpstreamRequest: on the proxy's hot path, each object and field is garbage of every request.
 */
export interface UpstreamRequest extends ProxyControls {
  method: string;
  /** The upstream path, as `upstreamPath` read and checked it. */
  path: string;
  /** The query, `?` included, or "". */
  query: string;
  /** `path` and `query` are known to pass `isPlainTarget` (read without the URL parser). */
  plain: boolean;
  /** The body, or how to take it (after the connection resolved, so a body is never read for nothing). */
  body: OutgoingBody | (() => Promise<OutgoingBody>);
}

/**
 * Reads the control headers. An empty value counts as absent, for every header. Problems are
 * reported together as 400 `invalid_headers`, each naming its header.
 */
export function readProxyControls(from: Headers | HeaderRecord): ProxyControls {
  const { providerConfigKey, connectionId, retries, retryOn, baseUrlOverride, decompress } = readUpstreamRequest(
    headerRecord(from),
    "",
    "",
    "",
    false,
    NO_BODY,
  );
  return { providerConfigKey, connectionId, retries, retryOn, baseUrlOverride, decompress };
}

/** A call of the engine: the controls read from the caller's headers (as readProxyControls), and the rest. */
export function readUpstreamRequest(
  headers: HeaderRecord,
  method: string,
  path: string,
  query: string,
  plain: boolean,
  body: UpstreamRequest["body"],
): UpstreamRequest {
  const errors: FieldError[] = [];
  const providerConfigKey = value(headers, "provider-config-key");
  const connectionId = value(headers, "connection-id");
  if (!providerConfigKey)
    errors.push({ location: "header", path: "Provider-Config-Key", message: "is required (the integration id)" });
  if (!connectionId)
    errors.push({ location: "header", path: "Connection-Id", message: "is required (the connection id)" });
  const retries = readRetries(headers, errors);
  const retryOn = readRetryOn(headers, errors);
  const decompress = readDecompress(headers, errors);
  if (errors.length > 0) throw invalidHeaders(errors);
  return {
    method,
    path,
    query,
    plain,
    body,
    providerConfigKey: providerConfigKey as string,
    connectionId: connectionId as string,
    retries,
    retryOn,
    baseUrlOverride: value(headers, "base-url-override"),
    decompress,
  };
}

/** `Retries`: a whole number, or undefined when not sent; anything else is added to `errors`. */
function readRetries(headers: HeaderRecord, errors: FieldError[]): number | undefined {
  const raw = value(headers, "retries");
  if (raw === undefined) return undefined;
  if (/^\d{1,4}$/.test(raw)) return Number(raw);
  errors.push({ location: "header", path: "Retries", message: "must be a whole number of retries, e.g. 3" });
  return undefined;
}

/** `Retry-On`: comma-separated HTTP statuses, or none when not sent; anything else is added to `errors`. */
function readRetryOn(headers: HeaderRecord, errors: FieldError[]): ReadonlySet<number> {
  const raw = value(headers, "retry-on");
  if (raw === undefined) return NO_STATUSES;
  const codes = RETRY_ON_RE.test(raw) ? raw.split(",").map((c) => Number(c.trim())) : [];
  if (codes.length > 0 && !codes.some((c) => c < 100 || c > 599)) return new Set(codes);
  errors.push({ location: "header", path: "Retry-On", message: "must be comma-separated HTTP statuses, e.g. 429,503" });
  return NO_STATUSES;
}

/** `Decompress`: "true" or "false" (any case), false when not sent; anything else is added to `errors`. */
function readDecompress(headers: HeaderRecord, errors: FieldError[]): boolean {
  const raw = value(headers, "decompress")?.toLowerCase();
  if (raw !== undefined && raw !== "true" && raw !== "false") {
    errors.push({ location: "header", path: "Decompress", message: 'must be "true" or "false"' });
  }
  return raw === "true";
}

/** The one 400 for every header problem: the missing required ones if any, else each invalid one. */
function invalidHeaders(errors: FieldError[]): JunctionError {
  const missing = errors.filter((e) => e.message.startsWith("is required")).map((e) => e.path);
  const message =
    missing.length > 0
      ? `Missing required header${missing.length > 1 ? "s" : ""} ${missing.join(" and ")}.`
      : `Invalid header${errors.length > 1 ? "s" : ""}: ${errors.map((e) => `${e.path} ${e.message}`).join("; ")}.`;
  return invalidArgument("invalid_headers", message, errors);
}
