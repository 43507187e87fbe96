import { describe, expect, test } from "bun:test";
import { useOAuthHarness } from "../../testing/oauth-test-kit.ts";

describe("VerifySecretKey", () => {
  const harness = useOAuthHarness();

  test("answers a valid key's id, name and scopes (what a run names its caller by), and nothing for a revoked one", async () => {
    const h = await harness.start();
    const created = await h.client.createSecretKey({ name: "ci-bot", scopes: ["environment:actions:execute"] });
    const verified = await h.client.verifySecretKey({ secretKey: created.plaintext });
    expect(verified).toMatchObject({
      valid: true,
      keyId: created.key?.id,
      keyName: "ci-bot",
      scopes: ["environment:actions:execute"],
    });
    await h.client.revokeSecretKey({ id: created.key?.id ?? "" });
    const revoked = await h.client.verifySecretKey({ secretKey: created.plaintext });
    expect([revoked.valid, revoked.keyName]).toEqual([false, ""]);
  });
});
