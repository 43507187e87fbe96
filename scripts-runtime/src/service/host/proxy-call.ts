import { type Logger, readTextLimited } from "@junction/platform";
import {
  assertSafePath,
  bodyOfBytes,
  createUpstreamProxy,
  headerRecord,
  NO_BODY,
  type ProxyServiceClient,
  proxyServiceCalls,
  readUpstreamRequest,
  type UpstreamProxyOptions,
  upstreamPath,
} from "@junction/upstream-proxy";
import type { JsonValue } from "../../runtime/run-types.ts";
import { type ProxyConfiguration, type ProxyResponse, ScriptHostError } from "../../runtime/script-host.ts";

/** The largest upstream answer handed to a script; a larger one fails the call with 413. */
export const MAX_PROXY_RESPONSE_BYTES = 32 * 1024 * 1024;

/** Where and as whom a script's proxy call goes. */
export interface ProxyScope {
  environmentId: string;
  providerConfigKey: string;
  connectionId: string;
  /** The run id: the request id of the call in Junction's logs. */
  runId: string;
  clients: { proxy: ProxyServiceClient };
  logger: Logger;
}

/** Methods that carry no body upstream. */
const BODILESS = new Set(["GET", "HEAD"]);

/**
 * A script's `nango.proxy` through the proxy engine that serves /proxy, in process: the same upstream
 * URL rules, token refresh before expiry and once after a 401, retries, Base-Url-Override checks, and
 * channel watch/stop calls reported to the channel registry, as for a /proxy request with the same
 * headers. One instance per service, so that the answers of ResolveUpstream are cached across runs
 * exactly as the gateway caches them.
 */
export function createScriptProxy(options: UpstreamProxyOptions = {}) {
  let engine: ReturnType<typeof createUpstreamProxy> | undefined;
  return async (scope: ProxyScope, config: ProxyConfiguration): Promise<ProxyResponse> => {
    engine ??= createUpstreamProxy({ ...options, ...proxyServiceCalls(scope.clients.proxy) });
    const { path: endpointPath, query } = splitEndpoint(config.endpoint);
    try {
      assertSafePath(endpointPath);
    } catch (err) {
      throw new ScriptHostError(`nango.proxy: endpoint ${(err as Error).message}`, 400, null, "invalid_proxy_path");
    }
    // The path and query as a /proxy request's URL would carry them (the URL parser's encoding).
    const url = new URL(`http://scripts.junction.internal/proxy${endpointPath}${withParams(query, config.params)}`);
    const headers = proxyHeaders(scope, config);
    const body = BODILESS.has(config.method) ? null : encodeBody(config.data, headers);
    const path = upstreamPath(url);
    const incoming = headerRecord(headers);
    // The control headers are read and checked as the /proxy route reads them (a script's settings are Nango's).
    const request = readUpstreamRequest(
      incoming,
      config.method,
      path,
      url.search,
      false,
      body === null ? NO_BODY : bodyOfBytes(new TextEncoder().encode(body)),
    );
    const res = await engine(request, {
      environmentId: scope.environmentId,
      headers: incoming,
      // Nobody leaves a script's call half-way: its signal never aborts.
      req: new AbortController(),
      requestId: scope.runId,
      logger: scope.logger,
    });
    return proxyAnswer(res, config);
  };
}

/** The script's headers and its proxy settings as a /proxy request's control headers. */
function proxyHeaders(scope: ProxyScope, config: ProxyConfiguration): Headers {
  const headers = scriptHeaders(config.headers);
  headers.set("provider-config-key", config.providerConfigKey ?? scope.providerConfigKey);
  headers.set("connection-id", config.connectionId ?? scope.connectionId);
  if (config.retries !== undefined) headers.set("retries", String(config.retries));
  if (config.retryOn && config.retryOn.length > 0) headers.set("retry-on", config.retryOn.join(","));
  if (config.baseUrlOverride) headers.set("base-url-override", config.baseUrlOverride);
  if (config.decompress !== undefined) headers.set("decompress", String(config.decompress));
  return headers;
}

/** The upstream's answer as the script sees it: its body read within the limit, as text or (leniently) JSON. */
async function proxyAnswer(res: Response, config: ProxyConfiguration): Promise<ProxyResponse> {
  const text = await readTextLimited(
    res.body,
    MAX_PROXY_RESPONSE_BYTES,
    () =>
      new ScriptHostError(
        `nango.proxy: the upstream answered more than ${MAX_PROXY_RESPONSE_BYTES} bytes`,
        413,
        null,
        "response_too_large",
      ),
  );
  const responseHeaders: Record<string, string> = {};
  res.headers.forEach((value, name) => {
    responseHeaders[name] = value;
  });
  return {
    status: res.status,
    headers: responseHeaders,
    data: config.responseType === "text" ? text : parseLenient(text),
  };
}

function splitEndpoint(endpoint: string): { path: string; query: string } {
  const at = endpoint.indexOf("?");
  const raw = at < 0 ? endpoint : endpoint.slice(0, at);
  return { path: raw.startsWith("/") ? raw : `/${raw}`, query: at < 0 ? "" : endpoint.slice(at) };
}

/** The endpoint's own query, then `params` (arrays as repeated keys), in order. */
function withParams(query: string, params: ProxyConfiguration["params"]): string {
  if (!params || Object.keys(params).length === 0) return query;
  const extra = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    for (const v of Array.isArray(value) ? value : [value]) extra.append(key, String(v));
  }
  const joined = extra.toString();
  return query === "" || query === "?" ? `?${joined}` : `${query}&${joined}`;
}

/**
 * The request body as axios sends it: a string as it is (form-encoded unless the script says
 * otherwise), anything else as JSON. The length is set so that the proxy can send it again after a
 * 401 or a retryable failure.
 */
function encodeBody(data: JsonValue | undefined, headers: Headers): string | null {
  if (data === undefined) return null;
  const text = typeof data === "string" ? data : JSON.stringify(data);
  if (!headers.has("content-type")) {
    headers.set("content-type", typeof data === "string" ? "application/x-www-form-urlencoded" : "application/json");
  }
  headers.set("content-length", String(Buffer.byteLength(text)));
  return text;
}

/** JSON when it parses, the text otherwise (axios' default `responseType`). */
function parseLenient(text: string): JsonValue {
  if (text === "") return "";
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return text;
  }
}

/** RFC 9110 field names; values may not hold CR, LF or NUL (header injection). */
const FIELD_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const BAD_VALUE = /[\r\n\0]/;

/**
 * A script's headers, checked: a bad name or a value with CR, LF or NUL is the script's catchable 400
 * `invalid_header`, naming the header but never repeating its value (it may hold a secret).
 */
function scriptHeaders(given: Record<string, string> | undefined): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(given ?? {})) {
    const text = String(value);
    if (!FIELD_NAME.test(name) || BAD_VALUE.test(text)) {
      const shown = FIELD_NAME.test(name) ? `"${name}"` : "a header whose name";
      throw new ScriptHostError(
        `nango.proxy: ${shown} is not a valid HTTP header (names are tokens; values may not hold CR, LF or NUL)`,
        400,
        null,
        "invalid_header",
      );
    }
    headers.set(name, text);
  }
  return headers;
}
