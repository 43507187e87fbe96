import { promises as dns, type LookupAddress } from "node:dns";
import http from "node:http";
import https from "node:https";
import { isIP } from "node:net";
import { parseRetryAfter } from "@junction/platform/retry";
import { AddressRefusedError } from "@junction/platform/address-refused-error";
import type { OutboundAddressPolicy } from "@junction/platform/outbound-address-policy";
import { checkEndpointUrl, type EndpointUrlCheck, endpointPolicy, isPrivateOrLoopbackHost } from "../address-policy.ts";

export { parseRetryAfter };

/** One POST of a message to one endpoint. */
export interface SendRequest {
  url: string;
  headers: Record<string, string>;
  body: Uint8Array;
  timeoutMs: number;
}

/** What came of it. `statusCode` is 0 when there was no response. */
export interface SendResult {
  statusCode: number;
  /** Time to the response headers (or to the failure), milliseconds. */
  latencyMs: number;
  /** First bytes of the response body, as text. */
  responseSnippet: string;
  /** Why it failed; null for a 2xx. */
  error: string | null;
  /** A 429's Retry-After, in milliseconds from now; null otherwise. */
  retryAfterMs: number | null;
}

/** Resolves a DNS name to every address it has (the default uses the system resolver). */
export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

export interface HttpSenderOptions {
  /** Private and loopback addresses allowed (local development, tests). */
  allowPrivate: boolean;
  /** Hosts the operator allows although private (JUNCTION_ALLOWED_PRIVATE_HOSTS). */
  allowedHosts?: readonly string[];
  resolve?: Resolver;
  /** The current time in Unix ms, for Retry-After given as an HTTP date. */
  now?: () => number;
}

/** An endpoint URL as checked: refused, or where and how to post. */
type Target = { refused: string } | { href: string; url: URL; literal: boolean };

/** URLs whose check is remembered at most; only bounds the map against a flood of distinct URLs. */
const MAX_REMEMBERED_URLS = 1000;

/** How much of a response body is kept in the delivery log. */
export const SNIPPET_BYTES = 1024;

const systemResolver: Resolver = (hostname) => dns.lookup(hostname, { all: true, verbatim: true });

/**
 * The delivery HTTP client. Every URL is checked again against the address policy (an endpoint
 * saved while private addresses were allowed is refused once they are not). A literal address is
 * checked as written; a DNS name is checked at connect time, on every address it resolves to, so
 * a name that resolves (or is re-pointed) to a private address is refused too. Redirects are not
 * followed: a 3xx is a failed attempt, since it could lead anywhere.
 */
export function createHttpSender(options: HttpSenderOptions): (request: SendRequest) => Promise<SendResult> {
  const resolve = options.resolve ?? systemResolver;
  const now = options.now ?? Date.now;
  const agents = {
    http: new http.Agent({ keepAlive: true }),
    https: new https.Agent({ keepAlive: true }),
  };
  // Endpoints are few and every message goes to them: each URL is checked and parsed once. The
  // check depends only on the URL and on `allowPrivate`, fixed for this sender.
  const targets = new Map<string, Target>();
  const policy = endpointPolicy(options);
  const targetOf = (raw: string): Target => {
    let target = targets.get(raw);
    if (!target) {
      const check = checkedEndpoint(raw, policy);
      if (!check.ok) target = { refused: `refused: the endpoint URL ${check.reason}` };
      else {
        const url = new URL(check.url);
        const literal = url.hostname === "localhost" || isIP(url.hostname.replace(/^\[|\]$/g, "")) !== 0;
        target = { href: check.url, url, literal };
      }
      if (targets.size >= MAX_REMEMBERED_URLS) targets.clear();
      targets.set(raw, target);
    }
    return target;
  };
  return async (request) => {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const target = targetOf(request.url);
    if ("refused" in target) return failure(0, target.refused);
    try {
      const response = target.literal
        ? await viaFetch(target.href, request)
        : await viaNode(target.url, request, agents, resolve, policy.allows(target.url.hostname));
      const latencyMs = elapsed();
      const ok = response.status >= 200 && response.status < 300;
      const retryAfterMs = response.status === 429 ? parseRetryAfter(response.retryAfter, now()) : null;
      return {
        statusCode: response.status,
        latencyMs,
        responseSnippet: response.snippet,
        error: ok ? null : `HTTP ${response.status}`,
        retryAfterMs,
      };
    } catch (err) {
      return failure(elapsed(), describe(err, request.timeoutMs));
    }
  };

  function failure(latencyMs: number, error: string): SendResult {
    return { statusCode: 0, latencyMs, responseSnippet: "", error, retryAfterMs: null };
  }
}

interface RawResponse {
  status: number;
  retryAfter: string | null;
  snippet: string;
}

async function viaFetch(url: string, request: SendRequest): Promise<RawResponse> {
  // Not AbortSignal.timeout: its timer outlives the attempt and aborts a finished request's signal
  // later, which cost a tenth of the CPU under load. This timer is cleared when the attempt ends.
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new DOMException("attempt timed out", "TimeoutError")),
    request.timeoutMs,
  );
  try {
    const res = await fetch(url, {
      method: "POST",
      headers: request.headers,
      body: request.body as Uint8Array<ArrayBuffer>,
      redirect: "manual",
      signal: controller.signal,
    });
    const snippet = await readSnippet(res.body);
    return { status: res.status, retryAfter: res.headers.get("retry-after"), snippet };
  } finally {
    clearTimeout(timer);
  }
}

async function readSnippet(body: ReadableStream<Uint8Array> | null): Promise<string> {
  if (!body) return "";
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < SNIPPET_BYTES) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  return toSnippet(Buffer.concat(chunks));
}

function toSnippet(bytes: Buffer): string {
  return bytes
    .subarray(0, SNIPPET_BYTES)
    .toString("utf8")
    .replace(/\uFFFD+$/, "");
}

/** A `lookup` hook for Node's client that refuses a name resolving to a private address (unless allowed). */
function policyLookup(resolve: Resolver, allowPrivate: boolean) {
  return (
    hostname: string,
    opts: { all?: boolean },
    callback: (err: Error | null, address: string | LookupAddress[], family?: number) => void,
  ) => {
    resolve(hostname).then(
      (addresses) => {
        const refused = allowPrivate ? undefined : addresses.find((a) => isPrivateOrLoopbackHost(a.address));
        const first = addresses[0];
        if (refused) callback(resolvedToPrivate(hostname, refused.address), "");
        else if (!first) callback(Object.assign(new Error(`${hostname} did not resolve`), { code: "ENOTFOUND" }), "");
        else if (opts.all) callback(null, addresses);
        else callback(null, first.address, first.family);
      },
      (err: Error) => callback(err, ""),
    );
  };
}

/** Node's client, for DNS names: its `lookup` hook sees the addresses it is about to connect to. */
function viaNode(
  url: URL,
  request: SendRequest,
  agents: { http: http.Agent; https: https.Agent },
  resolve: Resolver,
  allowPrivate: boolean,
): Promise<RawResponse> {
  const lookup = policyLookup(resolve, allowPrivate);
  return new Promise((resolvePromise, reject) => {
    const client = url.protocol === "https:" ? https : http;
    const req = client.request(
      url,
      {
        method: "POST",
        headers: { ...request.headers, "content-length": String(request.body.byteLength) },
        agent: url.protocol === "https:" ? agents.https : agents.http,
        lookup: lookup as never,
        signal: AbortSignal.timeout(request.timeoutMs),
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const finish = () => {
          res.removeAllListeners("data");
          const retryAfter = res.headers["retry-after"];
          resolvePromise({
            status: res.statusCode ?? 0,
            retryAfter: typeof retryAfter === "string" ? retryAfter : null,
            snippet: toSnippet(Buffer.concat(chunks)),
          });
          res.destroy();
        };
        res.on("data", (chunk: Buffer) => {
          chunks.push(chunk);
          size += chunk.byteLength;
          if (size >= SNIPPET_BYTES) finish();
        });
        res.on("end", finish);
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(request.body);
  });
}

/** A DNS name resolved to an address the policy refuses. */

/** The endpoint check at send time, its policy refusal as a reason for the delivery log. */
function checkedEndpoint(raw: string, policy: OutboundAddressPolicy): EndpointUrlCheck {
  try {
    return checkEndpointUrl(raw, policy);
  } catch (err) {
    if (err instanceof AddressRefusedError)
      return { ok: false, reason: "points to a private, loopback or link-local address" };
    throw err;
  }
}

/** The address policy's refusal of an address a name resolved to, at connect time. */
function resolvedToPrivate(hostname: string, address: string): AddressRefusedError {
  return new AddressRefusedError({
    field: "endpoint_url",
    host: hostname,
    reason: `resolves to ${address}, a private, loopback or link-local address`,
    when: "fetched",
  });
}

/** A short, stable description of a transport failure, for the delivery log. */
function describe(err: unknown, timeoutMs: number): string {
  const e = err as { name?: string; code?: string; message?: string; cause?: unknown };
  const refused = err instanceof AddressRefusedError ? err : e?.cause instanceof AddressRefusedError ? e.cause : null;
  if (refused) return `refused: ${refused.refusal.host} ${refused.refusal.reason}`;
  const cause = e?.cause as { name?: string; code?: string } | undefined;
  if (e?.name === "TimeoutError" || cause?.name === "TimeoutError" || e?.name === "AbortError") {
    return `timed out after ${timeoutMs} ms`;
  }
  const code = e?.code ?? cause?.code;
  return `connection failed: ${code ?? e?.message ?? String(err)}`;
}
