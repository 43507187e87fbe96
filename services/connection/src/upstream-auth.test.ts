import { describe, expect, test } from "bun:test";
import type { StoredCredentials } from "./credentials.ts";
import { upstreamAuth } from "./upstream-auth.ts";

const base = { accessToken: "", refreshToken: "", expiresAt: null, raw: {} };
const key: StoredCredentials = { ...base, type: "API_KEY", apiKey: "k1" };

describe("upstreamAuth", () => {
  test("OAuth tokens go as Bearer, client-credentials tokens too", () => {
    for (const type of ["OAUTH2", "OAUTH2_CC"] as const) {
      expect(upstreamAuth(undefined, { ...base, type, accessToken: "at" })).toEqual({
        headers: { authorization: "Bearer at" },
        query: {},
      });
    }
  });

  test("an OAuth access token goes where the definition's accessToken places it (a custom header, no prefix)", () => {
    const placement = { in: "header", name: "X-Shopify-Access-Token", prefix: "" } as const;
    expect(upstreamAuth({ accessToken: placement }, { ...base, type: "OAUTH2", accessToken: "at" })).toEqual({
      headers: { "x-shopify-access-token": "at" },
      query: {},
    });
  });

  test("the definition's proxy headers go on every call, under the credentials' own", () => {
    const definition = { proxyHeaders: { "Notion-Version": "2022-06-28", Authorization: "not this" } };
    expect(upstreamAuth(definition, { ...base, type: "OAUTH2", accessToken: "at" })).toEqual({
      headers: { "notion-version": "2022-06-28", authorization: "Bearer at" },
      query: {},
    });
  });

  test("an API key goes where the definition places it, with its prefix; Bearer in Authorization by default", () => {
    expect(upstreamAuth({ apiKey: undefined }, key)).toEqual({ headers: { authorization: "Bearer k1" }, query: {} });
    expect(upstreamAuth({ apiKey: { in: "header", name: "X-Api-Key", prefix: "" } }, key)).toEqual({
      headers: { "x-api-key": "k1" },
      query: {},
    });
    expect(upstreamAuth({ apiKey: { in: "query", name: "api_key", prefix: "" } }, key)).toEqual({
      headers: {},
      query: { api_key: "k1" },
    });
  });

  test("a user name and password go as a Basic header (RFC 7617), a colon in the password kept", () => {
    const basic: StoredCredentials = { ...base, type: "BASIC", username: "ann", password: "p:w" };
    expect(upstreamAuth(undefined, basic).headers.authorization).toBe(`Basic ${btoa("ann:p:w")}`);
  });
});
