import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_OAUTH_SETTINGS, loadOAuthSettings } from "./oauth-settings.ts";

const dir = mkdtempSync(join(tmpdir(), "junction-oauth-settings-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("loadOAuthSettings", () => {
  test("defaults: 5 min margin, 10 s timeout, 30 min sessions, 30 s leases, no test credentials", () => {
    expect(loadOAuthSettings({})).toEqual(DEFAULT_OAUTH_SETTINGS);
  });

  test("reads test credentials from the file, then per-provider variables, then the sandbox fallback", () => {
    const file = join(dir, "creds.json");
    writeFileSync(
      file,
      JSON.stringify({
        "google-calendar": { client_id: "from-file", client_secret: "s1" },
        "google-mail": { client_id: "mail-file", client_secret: "s2", token_url: "http://127.0.0.1:9/token/" },
      }),
    );
    const settings = loadOAuthSettings(
      {
        JUNCTION_TEST_CREDENTIALS_FILE: file,
        JUNCTION_TEST_CREDENTIALS_GOOGLE_CALENDAR: JSON.stringify({ client_id: "from-env", client_secret: "s3" }),
        JUNCTION_TOKEN_REFRESH_MARGIN_MS: "60000",
      },
      { "google-calendar": { clientId: "sandbox", clientSecret: "x" }, other: { clientId: "sb", clientSecret: "y" } },
    );
    expect(settings.refreshMarginMs).toBe(60_000);
    expect(settings.testCredentials).toEqual({
      "google-calendar": { clientId: "from-env", clientSecret: "s3" },
      "google-mail": { clientId: "mail-file", clientSecret: "s2", tokenUrl: "http://127.0.0.1:9/token" },
      other: { clientId: "sb", clientSecret: "y" },
    });
  });

  test("bad test credentials fail fast, naming the variable and never echoing the secret", () => {
    const run = () =>
      loadOAuthSettings({ JUNCTION_TEST_CREDENTIALS_GOOGLE_MAIL: JSON.stringify({ client_secret: "hush-hush" }) });
    expect(run).toThrow(/JUNCTION_TEST_CREDENTIALS_GOOGLE_MAIL: expected \{client_id, client_secret/);
    try {
      run();
    } catch (e) {
      expect((e as Error).message).not.toContain("hush-hush");
    }
    expect(() => loadOAuthSettings({ JUNCTION_TEST_CREDENTIALS_GOOGLE_MAIL: "{not json" })).toThrow(/not valid JSON/);
    expect(() => loadOAuthSettings({ JUNCTION_TEST_CREDENTIALS_FILE: join(dir, "missing.json") })).toThrow(/no file/);
  });

  test("a lease shorter than the token request timeout is refused: two processes could refresh at once", () => {
    expect(() =>
      loadOAuthSettings({ JUNCTION_REFRESH_LEASE_TTL_MS: "5000", JUNCTION_TOKEN_REQUEST_TIMEOUT_MS: "10000" }),
    ).toThrow(/JUNCTION_REFRESH_LEASE_TTL_MS must be longer/);
  });
});
