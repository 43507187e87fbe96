import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { TEST_SECRET_KEY } from "../support/embedded-junction.ts";
import { columnTexts, goTo, launchChromium, logIn } from "./dashboard-browser-kit.ts";
import { screenshotsLightAndDark } from "./dashboard-themes.ts";
import { CAL, useScriptsWorld } from "./scripts-kit.ts";

// An integration's page lists its MCP tools (Debian's Chromium): the list POST /mcp's tools/list answers.
setDefaultTimeout(180_000);

const world = useScriptsWorld();
const INPUT = { type: "object", properties: { title: { type: "string" } }, required: ["title"] };

describe("the integration page's tools", () => {
  test("lists each action that is a tool with its description and schemas", async () => {
    const w = await world();
    await w.deploy(
      "create-event",
      `import { createAction } from "nango";
export default createAction({ description: "Creates an event", input: ${JSON.stringify(INPUT)}, exec: async (nango, input) => ({ title: input.title }) });
`,
    );
    const browser = await launchChromium();
    try {
      const page = browser.page;
      await logIn(page, w.j.url, TEST_SECRET_KEY);
      await goTo(page, `#/integrations/${CAL}`, "integrations");
      await page.waitForSelector('#tools details[data-tool="create-event"]');
      expect(await page.textContent('#tools details[data-tool="create-event"] summary')).toContain("Creates an event");
      await page.click('#tools details[data-tool="create-event"] summary');
      const input = JSON.parse((await page.textContent('#tools details[data-tool="create-event"] pre')) ?? "{}");
      expect(input).toEqual(INPUT);
      expect(await page.textContent('#tools details[data-tool="create-event"]')).toContain("None declared");
      await page.locator("#integration-tools").scrollIntoViewIfNeeded();
      await screenshotsLightAndDark(page, "integration-tools");
    } finally {
      await browser.close();
    }
  });

  test("runs a tool from its form; the latest calls and the run page show who called, input, output and duration", async () => {
    const w = await world();
    await w.connect("alice");
    await w.deploy(
      "create-event",
      `import { createAction } from "nango";
export default createAction({ description: "Creates an event", input: ${JSON.stringify(INPUT)}, exec: async (nango, input) => ({ title: input.title, connection: nango.connectionId }) });
`,
    );
    const created = await w.api("POST", "/secret-keys", { name: "ci-bot", scopes: ["environment:actions:execute"] });
    const headers = {
      authorization: `Bearer ${created.body.data.secret_key}`,
      "connection-id": "alice",
      "provider-config-key": CAL,
    };
    const byKey = await w.api(
      "POST",
      "/action/trigger",
      { action_name: "create-event", input: { title: "API" } },
      headers,
    );
    expect(byKey.status).toBe(200);
    const sessionKey = ((await w.api("GET", "/secret-keys")).body.data as { name: string; scopes: string[] }[]).find(
      (k) => k.scopes.length === 0,
    );
    const browser = await launchChromium();
    try {
      const page = browser.page;
      await logIn(page, w.j.url, TEST_SECRET_KEY);
      await goTo(page, `#/integrations/${CAL}`, "integrations");
      const tool = '#tools details[data-tool="create-event"]';
      await page.waitForSelector(tool);
      expect(await columnTexts(page, "#tool-calls", "Called by")).toEqual(["secret key ci-bot"]);
      await page.click(`${tool} summary`);
      await page.fill(`${tool} .tool-connection`, "alice");
      await page.fill(`${tool} .tool-input`, JSON.stringify({ title: "Dashboard" }));
      await page.click(`${tool} .tool-run`);
      await page.waitForSelector(`${tool} .tool-run-link`);
      expect(JSON.parse((await page.textContent(`${tool} .tool-result pre`)) ?? "null")).toEqual({
        title: "Dashboard",
        connection: "alice",
      });
      await page.click(`${tool} .tool-run-link`);
      await page.waitForSelector('#app[data-view="scripts"] #run-input');
      expect(await columnTexts(page, "#run-fields", "Called by")).toEqual([`dashboard ${sessionKey?.name}`]);
      expect(JSON.parse((await page.textContent("#run-input")) ?? "null")).toEqual({ title: "Dashboard" });
      expect(JSON.parse((await page.textContent("#run-output")) ?? "null")).toEqual({
        title: "Dashboard",
        connection: "alice",
      });
      const [took] = await columnTexts(page, "#run-fields", "Duration");
      expect(took).toMatch(/\d/);
      await screenshotsLightAndDark(page, "tool-call-run");
    } finally {
      await browser.close();
    }
  });
});
