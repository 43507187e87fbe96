import { describe, expect, test } from "bun:test";
import { CLIENT, type OAuthWorld, useOAuthWorld } from "./oauth-e2e-kit.ts";
import { createIntegration, testClient } from "./push-stories-kit.ts";

// Gmail pushes name the mailbox's address: at authorization Junction reads it from the Gmail profile
// and stores its emailAddressHash (rule 2's first tier), when the grant lets it read the profile.

const world = useOAuthWorld();
const GMAIL = "https://www.googleapis.com/auth";

/** A Gmail integration asking for `scopes`, one connection authorized through the fake; its record. */
async function connectWith(w: OAuthWorld, scopes: string[]) {
  await createIntegration(
    w.j,
    {
      unique_key: "mail",
      provider: "google-mail",
      credentials: testClient(scopes),
      upstream_overrides: {
        base_url: w.fake.url,
        authorization_url: w.fake.endpoints.authorizationUrl,
        token_url: w.fake.endpoints.tokenUrl,
      },
    },
    {},
  );
  const session = await w.session({
    end_user: { id: "user-1", email: "alice@example.com" },
    allowed_integrations: ["mail"],
  });
  expect((await w.callback(await w.authorize("mail", session))).code).toBe("connected");
  const [id] = await w.connectionIds("mail");
  const res = await w.j.api("GET", `/connection/${id}?provider_config_key=mail`);
  return res.body as { connection_config: Record<string, unknown>; errors?: { type: string }[] };
}

describe("Gmail connections' email hash", () => {
  test("a grant that reads the mailbox stores the hash of the profile's address", async () => {
    const w = await world();
    const connection = await connectWith(w, ["openid", "email", `${GMAIL}/gmail.readonly`]);
    expect(connection.connection_config.emailAddressHash).toMatch(/^[0-9a-f]{64}$/);
    expect(connection.errors ?? []).toEqual([]);
    expect(w.j.logLines.join("\n")).not.toContain(CLIENT.clientSecret);
  });

  test("a send-only grant stores none, and records no error for it", async () => {
    const w = await world();
    const connection = await connectWith(w, ["openid", "email", `${GMAIL}/gmail.send`]);
    expect(connection.connection_config).not.toHaveProperty("emailAddressHash");
    expect(connection.errors ?? []).toEqual([]);
  });
});
