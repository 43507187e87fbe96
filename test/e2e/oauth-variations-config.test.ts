import { describe, expect, test } from "bun:test";
import type { FakeAuthorizationServer } from "@junction/providers/fake-authorization-server";
import { connectedId, KEY, useVariationWorld } from "./oauth-variations-kit.ts";

const world = useVariationWorld();

/** A provider whose OAuth URLs hold the user's {subdomain} and whose API lives at the token answer's instance_url. */
const instanceDefinition = (auth: FakeAuthorizationServer) => ({
  authorizationUrl: `${auth.url}/{subdomain}/oauth/authorize`,
  tokenUrl: `${auth.url}/{subdomain}/oauth/token`,
  baseUrl: "{instance_url}/api",
  connectFields: [{ key: "subdomain", label: "Your Acme subdomain", docsUrl: "https://docs.acme.test/subdomain" }],
  connectionConfig: [
    { key: "instance_url", from: "token_response", path: "instance_url" },
    { key: "account_id", from: "request", url: "/me", path: "account.id" },
  ],
});

describe("placeholders and connection config", () => {
  test("{subdomain} from the session, {instance_url} and an account id read at authorization, used by the proxy and the refresh", async () => {
    const w = await world({ definition: instanceDefinition });
    w.auth.behave({ extraAnswerFields: { instance_url: `${w.auth.url}/instance-7` } });
    const id = await connectedId(w, { subdomain: "team1" });
    expect(w.auth.authorizations[0]?.path).toBe("/team1/oauth/authorize");
    expect(w.auth.tokenRequests[0]?.path).toBe("/team1/oauth/token");
    const conn = await w.j.api("GET", `/connection/${id}?provider_config_key=${KEY}`);
    expect(conn.body.connection_config).toEqual({
      subdomain: "team1",
      instance_url: `${w.auth.url}/instance-7`,
      account_id: "acct-42",
    });
    const echo = await w.proxyEcho(id);
    expect(echo.status).toBe(200);
    expect(echo.body.path).toBe("/instance-7/api/echo");
    await w.clock.advance(3600_000);
    expect((await w.proxyEcho(id)).status).toBe(200);
    expect(w.auth.tokenRequests.map((r) => `${r.grantType} ${r.path}`)).toEqual([
      "authorization_code /team1/oauth/token",
      "refresh_token /team1/oauth/token",
    ]);
  });

  test("a placeholder the connection cannot fill is a 400 naming the provider and the field, before anything upstream", async () => {
    const w = await world({ definition: instanceDefinition });
    for (const config of [undefined, { subdomain: "evil.test/x" }]) {
      const res = await w.start(await w.session(config));
      expect(res.status).toBe(400);
      const body = (await res.json()) as any;
      expect(body.error.code).toBe("invalid_request");
      expect(body.error.errors[0].path).toBe("connection_config.subdomain");
      expect(body.error.errors[0].message).toContain('provider "acme-variant"');
    }
    expect(w.auth.authorizations).toEqual([]);
  });

  test("a token answer without the instance_url the definition reads fails the authorization; nothing is saved", async () => {
    const w = await world({ definition: instanceDefinition });
    const result = await w.connect({ subdomain: "team1" });
    expect(result.code).toBe("token_endpoint_invalid_response");
    expect(result.html).toContain("connection_config.instance_url could not be read");
    expect(result.html).toContain("the token answer has no &#34;instance_url&#34;");
    expect(await w.connectionIds()).toEqual([]);
  });
});
