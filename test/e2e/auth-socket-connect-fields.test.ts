import { describe, expect, test } from "bun:test";
import type { FakeAuthorizationServer } from "@junction/providers/fake-authorization-server";
import { waitFor } from "../support/wait-for.ts";
import { KEY, useVariationWorld } from "./oauth-variations-kit.ts";

// The frontend SDK's auth(integration, { params }) for a provider with connect fields: Nango's
// `params[key]` query fills the provider's URLs, and the result still ends on the SDK's socket.

const world = useVariationWorld();

const subdomainDefinition = (auth: FakeAuthorizationServer) => ({
  authorizationUrl: `${auth.url}/{subdomain}/oauth/authorize`,
  tokenUrl: `${auth.url}/{subdomain}/oauth/token`,
  baseUrl: `${auth.url}/{subdomain}/api`,
  connectFields: [{ key: "subdomain", label: "Your Acme subdomain", docsUrl: "https://docs.acme.test/subdomain" }],
});

describe("the SDK's params as connect fields", () => {
  test("params[subdomain] reaches the authorization URL and the connection, and the socket hears of it", async () => {
    const w = await world({ definition: subdomainDefinition });
    const ws = new WebSocket(w.j.url.replace(/^http/, "ws"));
    const messages: Record<string, unknown>[] = [];
    ws.onmessage = (e) => messages.push(JSON.parse(String(e.data)));
    await waitFor("the connection_ack", () => messages.length === 1, 10_000, 5);
    const id = messages[0]?.ws_client_id as string;
    const token = await w.session();
    const start = await fetch(
      `${w.j.url}/oauth/connect/${KEY}?connect_session_token=${token}&params[subdomain]=team1&ws_client_id=${id}`,
      { redirect: "manual", headers: { accept: "text/html" } },
    );
    expect(start.status).toBe(302);
    const callback = await w.auth.authorize(start.headers.get("location") as string);
    expect(w.auth.authorizations[0]?.path).toBe("/team1/oauth/authorize");
    expect((await fetch(`${w.j.url}${callback.pathname}${callback.search}`)).status).toBe(200);
    await waitFor("the result", () => messages.length === 2, 10_000, 5);
    const [connectionId] = await w.connectionIds();
    expect(messages[1]).toEqual({
      message_type: "success",
      provider_config_key: KEY,
      connection_id: connectionId,
      is_pending: false,
    });
    const conn = await w.j.api("GET", `/connection/${connectionId}?provider_config_key=${KEY}`);
    expect(conn.body.connection_config).toMatchObject({ subdomain: "team1" });
    ws.close();
  });
});
