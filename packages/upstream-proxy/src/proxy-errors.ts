import { Code } from "@connectrpc/connect";
import { invalidArgument, JunctionError } from "@junction/platform";

/** The proxy's own errors; http/error-response.ts maps the codes to 400, 502 and 504. */
export const proxyErrors = {
  /** The upstream could not be reached (refused, reset, DNS): 502. Names the host only, never the path. */
  unreachable: (host: string) =>
    new JunctionError(
      "upstream_unreachable",
      `The upstream ${host} could not be reached. Nothing was received from it.`,
      Code.Unavailable,
    ),
  /** The upstream's answer broke off while its first chunks were read ahead (read-ahead.ts): 502, same code. */
  brokeOff: (host: string) =>
    new JunctionError(
      "upstream_unreachable",
      `The upstream ${host} broke off its answer before it could be passed on.`,
      Code.Unavailable,
    ),
  /** No response headers within the timeout: 504. */
  timeout: (host: string, ms: number) =>
    new JunctionError(
      "upstream_timeout",
      `The upstream ${host} did not answer within ${Math.round(ms / 1000)} s.`,
      Code.DeadlineExceeded,
    ),
  /** The caller's Base-Url-Override is refused: 400. */
  overrideRefused: (reason: string) =>
    invalidArgument("base_url_override_not_allowed", `Base-Url-Override ${reason}.`, [
      { location: "header", path: "Base-Url-Override", message: reason },
    ]),
  /** The built URL would leave the upstream base: 400 (the path checks should have caught it first). */
  escaped: () =>
    invalidArgument("invalid_proxy_path", "The upstream path would leave the integration's base URL.", [
      { location: "path", path: "path", message: "leaves the integration's base URL" },
    ]),
  /** A header value carries a line break or NUL: 400. */
  badHeaderValue: (name: string) =>
    invalidArgument("invalid_headers", `Header ${name} contains a line break or NUL character.`, [
      { location: "header", path: name, message: "contains a line break or NUL character" },
    ]),
  /** A Nango-Proxy-* header names a header that cannot be forwarded: 400. */
  unforwardable: (name: string) =>
    invalidArgument(
      "invalid_headers",
      `Header ${name} cannot be forwarded: it controls the connection to the upstream, not the request.`,
      [{ location: "header", path: name, message: "cannot be forwarded" }],
    ),
};
