import { describe, expect, test } from "bun:test";
import { connectedId, useVariationWorld } from "./oauth-variations-kit.ts";

const world = useVariationWorld();

describe("OAuth 2.0 variations driven by the provider's definition", () => {
  test("client_secret_basic: the client authenticates with a Basic header, on the exchange and the refresh", async () => {
    const w = await world({
      behaviour: { clientAuthentication: "client_secret_basic" },
      definition: () => ({ clientAuthentication: "client_secret_basic" }),
    });
    const id = await connectedId(w);
    await w.clock.advance(3600_000);
    await w.credentials(id);
    expect(w.auth.tokenRequests.map((r) => [r.grantType, r.clientAuthenticatedBy])).toEqual([
      ["authorization_code", "basic"],
      ["refresh_token", "basic"],
    ]);
    expect(w.auth.tokenRequests.every((r) => r.params.client_id === undefined)).toBe(true);
  });

  test("client_secret_post against a server that wants Basic is refused as invalid_client", async () => {
    const w = await world({ behaviour: { clientAuthentication: "client_secret_basic" } });
    const result = await w.connect();
    expect(result.status).toBe(400);
    expect(result.code).toBe("token_exchange_refused");
    expect(result.html).toContain("invalid_client");
    expect(await w.connectionIds()).toEqual([]);
  });
});
