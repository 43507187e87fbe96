import { describe, expect, test } from "bun:test";
import { goTo } from "./dashboard-browser-kit.ts";
import { STEP_MS, useLoggedInDashboard } from "./dashboard-session-kit.ts";
import { screenshotsLightAndDark } from "./dashboard-themes.ts";

// The Settings page's secret keys (Debian's Chromium): create one with scopes (shown once), the list
// with scopes, created and last used, revoke after a confirmation, and no Revoke for the session's key.

const world = useLoggedInDashboard();
const keys = async () => (await world().j.api("GET", "/secret-keys")).body.data as any[];
const row = (name: string) => `#keys-table tr[data-key-name="${name}"]`;

describe("secret keys on the Settings page", () => {
  test(
    "lists the session's key as full access, without a Revoke button",
    async () => {
      const { page } = world();
      await goTo(page, "#/settings", "settings");
      const [own] = await keys();
      const mine = `#keys-table tr[data-key-id="${own.id}"]`;
      expect(await page.textContent(`${mine} .key-scopes`)).toBe("full access");
      expect(await page.$(`${mine} button`)).toBeNull();
      expect(await page.textContent(mine)).toContain("this session");
    },
    STEP_MS,
  );

  test(
    "creates a key limited to scopes, shows it once, and the key works within its scopes only",
    async () => {
      const { j, page } = world();
      await page.fill("#new-key-name", "agent");
      await page.click("#key-scopes summary");
      await page.check('input[data-scope="environment:mcp"]');
      await page.check('input[data-scope="environment:integrations:list"]');
      await page.click("#create-key");
      await page.waitForSelector("#new-key");
      const secret = (await page.textContent("#new-key-value")) ?? "";
      expect(secret).toMatch(/^jct_sk_/);
      const agent = (await keys()).find((k) => k.name === "agent");
      expect(agent.scopes).toEqual(["environment:integrations:list", "environment:mcp"]);
      expect(secret.startsWith(agent.prefix)).toBe(true);
      expect(await page.textContent(`${row("agent")} .key-scopes`)).toBe(
        "environment:integrations:listenvironment:mcp",
      );
      expect(await page.textContent(row("agent"))).toContain("never");

      const bearer = { authorization: `Bearer ${secret}` };
      expect((await j.api("GET", "/integrations", undefined, bearer)).status).toBe(200);
      expect((await j.api("GET", "/connections", undefined, bearer)).body.error.code).toBe("insufficient_scope");
      // Last used shows up when the page is drawn again; the plaintext never does.
      await goTo(page, "#/settings?again=1", "settings");
      expect(await page.content()).not.toContain(secret);
      expect(await page.textContent(row("agent"))).not.toContain("never");
      await screenshotsLightAndDark(page, "settings-keys");
    },
    STEP_MS,
  );

  test(
    "a refused create shows its error; revoke asks first, Cancel keeps the key, Yes revokes it",
    async () => {
      const { page } = world();
      await page.fill("#new-key-name", "x".repeat(101));
      await page.click("#create-key");
      await page.waitForSelector('#create-key-error[data-code="invalid_body"]');

      const agent = (await keys()).find((k) => k.name === "agent");
      await page.click(`${row("agent")} button`);
      await page.waitForSelector(`${row("agent")} button[data-confirm="revoke"]`);
      await page.click(`${row("agent")} button.secondary`);
      expect(await page.$(`${row("agent")} button[data-confirm="revoke"]`)).toBeNull();
      expect((await keys()).find((k) => k.id === agent.id).revoked_at).toBeNull();

      await page.click(`${row("agent")} button`);
      await page.click(`${row("agent")} button[data-confirm="revoke"]`);
      await page.waitForSelector(`${row("agent")} .badge.error`);
      expect(Date.parse((await keys()).find((k) => k.id === agent.id).revoked_at)).toBeGreaterThan(0);
      // The session's own key still works: the dashboard keeps answering.
      await goTo(page, "#/integrations", "integrations");
    },
    STEP_MS,
  );
});
