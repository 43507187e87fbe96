import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeAuthorizationServer } from "@junction/providers/fake-authorization-server";
import { startTestJunction } from "../support/embedded-junction.ts";
import { tempDir } from "../support/temp-dir.ts";
import { definitionFor, useVariationWorld } from "./oauth-variations-kit.ts";

const world = useVariationWorld();

describe("token answers that are not tokens: a clear page, nothing saved", () => {
  for (const [broken, says] of [
    ["no_access_token", "the answer has no access_token"],
    ["wrong_token_type", "the token_type is &#34;mac&#34;, not &#34;bearer&#34;"],
    ["html_200", "an HTML page, not a token answer"],
  ] as const) {
    test(`${broken}`, async () => {
      const w = await world({ behaviour: { breakNextAnswer: broken } });
      const result = await w.connect();
      expect(result.status).toBe(502);
      expect(result.code).toBe("token_endpoint_invalid_response");
      expect(result.html).toContain("provider &#34;acme-variant&#34;");
      expect(result.html).toContain(says);
      expect(await w.connectionIds()).toEqual([]);
    });
  }

  test("an HTML error page from the token endpoint", async () => {
    const w = await world();
    // The provider's error pages are HTML; the client secret it holds no longer matches the integration's.
    w.auth.behave({ htmlErrors: true, clientSecret: "rotated-upstream" });
    const result = await w.connect();
    expect(result.code).toBe("token_endpoint_invalid_response");
    expect(result.html).toContain("answered HTTP 401 with something that is not a token response: an HTML page");
    expect(await w.connectionIds()).toEqual([]);
  });

  test("a refresh answered without an access token keeps the connection's credentials as they were", async () => {
    const w = await world();
    const result = await w.connect();
    expect(result.code).toBe("connected");
    const [id] = await w.connectionIds();
    const before = await w.credentials(id as string);
    await w.clock.advance(3600_000);
    w.auth.behave({ breakNextAnswer: "no_access_token" });
    const res = await w.proxyEcho(id as string);
    expect(res.status).toBe(424);
    expect(res.body.error.message).toContain("the answer has no access_token");
    await w.clock.advance(31_000);
    const after = await w.credentials(id as string);
    expect(w.auth.tokenRequests.filter((r) => r.grantType === "refresh_token").map((r) => r.refreshToken)).toEqual([
      before.refreshToken,
      before.refreshToken,
    ]);
    expect(after.accessToken).not.toBe(before.accessToken);
  });
});

describe("definitions that are wrong stop the start, naming the file, the provider and the field", () => {
  for (const [what, change, says] of [
    ["a missing token URL", { tokenUrl: undefined }, "tokenUrl is required for OAUTH2"],
    ["an unknown auth mode", { authMode: "OAUTH1" }, "authMode must be one of OAUTH2, OAUTH2_CC, API_KEY, BASIC"],
    ["a base URL that is not http(s)", { baseUrl: "ftp://files.acme.test" }, "baseUrl must be an http(s) URL"],
  ] as const) {
    test(what, async () => {
      const auth = startFakeAuthorizationServer();
      const dir = tempDir();
      try {
        mkdirSync(join(dir.path, "providers"));
        const file = join(dir.path, "providers", "acme.json");
        writeFileSync(file, JSON.stringify({ ...definitionFor(auth), ...change }));
        const started = await startTestJunction({ dataDir: dir.path }).catch((err: Error) => err);
        expect(started).toBeInstanceOf(Error);
        const message = (started as Error).message;
        expect(message).toContain(file);
        expect(message).toContain('Provider definition "acme-variant" is invalid');
        expect(message).toContain(says);
      } finally {
        dir.remove();
        await auth.stop();
      }
    });
  }
});
