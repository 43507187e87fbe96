import { describe, expect, test } from "bun:test";
import type { JsonObject } from "@bufbuild/protobuf";
import { fromConnectError, type JunctionError } from "@junction/platform";
import { type ProviderAdapter, providerAdapter } from "@junction/providers";
import { createIntegrationOf, useOAuthHarness } from "../../testing/oauth-test-kit.ts";
import { checkOAuthUrls, fillUrlPlaceholders } from "./url-placeholders.ts";

const PROVIDER = "microsoft-outlook-calendar";
const adapter = providerAdapter(PROVIDER) as ProviderAdapter;

function refusal(run: () => unknown): JunctionError {
  try {
    run();
  } catch (err) {
    return err as JunctionError;
  }
  throw new Error("expected a refusal");
}

describe("OAuth URL placeholders (the tenant in Microsoft's URLs)", () => {
  test("fills {key} from the integration's settings, the adapter's default when it holds none", () => {
    const url = "https://login.example/{tenant}/oauth2/v2.0/authorize";
    expect(fillUrlPlaceholders(url, adapter, {}, "authorization_url")).toBe(
      "https://login.example/common/oauth2/v2.0/authorize",
    );
    expect(fillUrlPlaceholders(url, adapter, { tenant: "contoso.onmicrosoft.com" }, "authorization_url")).toBe(
      "https://login.example/contoso.onmicrosoft.com/oauth2/v2.0/authorize",
    );
    expect(fillUrlPlaceholders("https://plain.example/token", undefined, {}, "token_url")).toBe(
      "https://plain.example/token",
    );
  });

  test("refuses a value that is not one safe path segment, naming the setting", () => {
    for (const tenant of ["a/b", "..", ".", "a b", "a%2fb", "x?y=1", "x#y", "a\\b"]) {
      const err = refusal(() => fillUrlPlaceholders("https://l.example/{tenant}/t", adapter, { tenant }, "token_url"));
      expect(err.code).toBe("invalid_request");
      expect(err.errors).toEqual([
        {
          path: "provider_settings.tenant",
          message: `provider "${PROVIDER}": must be one URL path segment: letters, digits and . _ ~ - only`,
        },
      ]);
    }
  });

  test("refuses a placeholder no setting fills, and a brace that is not a placeholder", () => {
    const missing = refusal(() => fillUrlPlaceholders("https://l.example/{region}/t", adapter, {}, "token_url"));
    expect(missing.errors[0]?.path).toBe("provider_settings.region");
    const stray = refusal(() => fillUrlPlaceholders("https://l.example/{re-gion}/t", adapter, {}, "token_url"));
    expect(stray.errors[0]?.path).toBe("token_url");
    const checked = refusal(() => checkOAuthUrls(adapter, { tokenUrl: "https://l.example/{x}/token" }, {}));
    expect(checked.errors[0]?.path).toBe("provider_settings.x");
  });
});

describe("the connection service fills the placeholders", () => {
  const harness = useOAuthHarness();

  const create = (h: Awaited<ReturnType<typeof harness.start>>, over: Record<string, unknown> = {}) =>
    createIntegrationOf(h, "outlook", PROVIDER, over);

  test("an authorization starts on the template's URL with the default tenant", async () => {
    const h = await harness.start();
    await create(h);
    const { token } = await h.client.createConnectSession({
      endUser: { id: "user-1" } as JsonObject,
      allowedIntegrations: ["outlook"],
    });
    const { authorizationUrl } = await h.client.startAuthorization({
      providerConfigKey: "outlook",
      connectSessionToken: token,
    });
    const url = new URL(authorizationUrl);
    expect(`${url.origin}${url.pathname}`).toBe(adapter.authorizationUrl.replace("{tenant}", "common"));
    expect(url.searchParams.get("scope")).toBe(adapter.defaultScopes.join(" "));
  });

  test("create and update refuse a tenant that is not a path segment, and an override nothing fills", async () => {
    const h = await harness.start();
    const bad = await create(h, { providerSettings: { tenant: "evil.example/x" } }).catch(fromConnectError);
    expect(bad).toMatchObject({ code: "invalid_request", errors: [{ path: "provider_settings.tenant" }] });
    const unfilled = await create(h, { overrides: { tokenUrl: "https://login.example/{region}/token" } }).catch(
      fromConnectError,
    );
    expect(unfilled).toMatchObject({ code: "invalid_request", errors: [{ path: "provider_settings.region" }] });
    expect(await h.client.listIntegrations({})).toMatchObject({ integrations: [] });

    await create(h);
    const update = await h.client
      .updateIntegration({ uniqueKey: "outlook", providerSettings: { values: { tenant: ".." } } })
      .catch(fromConnectError);
    expect(update).toMatchObject({ code: "invalid_request", errors: [{ path: "provider_settings.tenant" }] });
  });

  test("the code exchange and the refresh post to the token URL with the tenant filled", async () => {
    const h = await harness.start();
    // A directory-shaped front for the fake upstream: /{tenant}/authorize and /{tenant}/token, paths recorded.
    const seen: string[] = [];
    const front = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      async fetch(req) {
        const url = new URL(req.url);
        seen.push(`${req.method} ${url.pathname}`);
        const target = url.pathname.endsWith("/token") ? h.fake.endpoints.tokenUrl : h.fake.endpoints.authorizationUrl;
        const body = req.method === "POST" ? await req.text() : undefined;
        return fetch(`${target}${url.search}`, { method: req.method, headers: req.headers, body, redirect: "manual" });
      },
    });
    try {
      const base = `http://127.0.0.1:${front.port}`;
      await create(h, {
        scopes: ["offline_access", "Calendars.Read"],
        overrides: {
          baseUrl: h.fake.url,
          // The fake issues refresh tokens as Google does (access_type=offline), not for offline_access.
          authorizationUrl: `${base}/{tenant}/authorize?access_type=offline`,
          tokenUrl: `${base}/{tenant}/token`,
        },
      });
      const done = await h.connect({ key: "outlook" });
      const ref = { providerConfigKey: "outlook", connectionId: done.connectionId };
      await h.clock.advance(3600_000);
      await h.client.getCredentials(ref);
      expect(h.fake.state.tokenRequests.refresh_token).toBe(1);
      expect(seen).toEqual(["GET /common/authorize", "POST /common/token", "POST /common/token"]);
    } finally {
      front.stop(true);
    }
  });
});
