import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { TEST_SECRET_KEY } from "../support/embedded-junction.ts";
import { goTo, launchChromium, logIn } from "./dashboard-browser-kit.ts";
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
});
