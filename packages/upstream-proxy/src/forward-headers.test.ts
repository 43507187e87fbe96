import { describe, expect, test } from "bun:test";
import { JunctionError } from "@junction/platform";
import { stripResponseHeaders, upstreamRequestHeaders } from "./forward-headers.ts";

const injected = { authorization: "Bearer upstream-token" };

describe("headers sent upstream", () => {
  test("the caller's, without hop-by-hop or Junction's own, then the injected token", () => {
    const out = upstreamRequestHeaders(
      new Headers({
        authorization: "Bearer jct_sk_secret",
        "provider-config-key": "cal",
        "connection-id": "a",
        retries: "1",
        "base-url-override": "https://x",
        host: "junction.test",
        connection: "keep-alive, x-hop",
        "x-hop": "1",
        "content-length": "3",
        "content-type": "application/json",
        "if-none-match": '"etag"',
      }),
      injected,
    );
    expect(out).toEqual({
      authorization: "Bearer upstream-token",
      "content-type": "application/json",
      "if-none-match": '"etag"',
    });
  });

  test("Nango-Proxy-<Name> is forwarded as <Name> and wins over the injected header", () => {
    const out = upstreamRequestHeaders(
      new Headers({ "Nango-Proxy-Authorization": "Bearer mine", "Nango-Proxy-X-Api": "1", "x-api": "plain" }),
      injected,
    );
    expect(out.authorization).toBe("Bearer mine");
    expect(out["x-api"]).toBe("1");
    expect("nango-proxy-x-api" in out).toBe(false);
  });

  test("Nango-Proxy-Host or a framing header is refused", () => {
    for (const name of ["nango-proxy-host", "nango-proxy-content-length", "nango-proxy-connection", "nango-proxy-"]) {
      expect(() => upstreamRequestHeaders(new Headers({ [name]: "x" }), injected)).toThrow(JunctionError);
    }
  });
});

describe("headers sent back", () => {
  test("the upstream's, without hop-by-hop ones, changed in place", () => {
    const out = stripResponseHeaders(
      new Headers({
        connection: "keep-alive, x-upstream-hop",
        "keep-alive": "timeout=5",
        "transfer-encoding": "chunked",
        "x-upstream-hop": "1",
        "content-type": "application/json",
        "content-length": "10",
        etag: '"v1"',
        "retry-after": "3",
      }),
      false,
    );
    expect(Object.fromEntries(out as unknown as Iterable<[string, string]>)).toEqual({
      "content-type": "application/json",
      "content-length": "10",
      etag: '"v1"',
      "retry-after": "3",
    });
  });

  test("set-cookie headers stay separate", () => {
    const upstream = new Headers();
    upstream.append("set-cookie", "a=1");
    upstream.append("set-cookie", "b=2");
    expect(stripResponseHeaders(upstream, false).getSetCookie()).toEqual(["a=1", "b=2"]);
  });

  test("after decompression, the encoding and length are dropped", () => {
    const out = stripResponseHeaders(
      new Headers({ "content-encoding": "gzip", "content-length": "28", "content-type": "text/plain" }),
      true,
    );
    expect(out.has("content-encoding")).toBe(false);
    expect(out.has("content-length")).toBe(false);
    expect(out.get("content-type")).toBe("text/plain");
  });
});
