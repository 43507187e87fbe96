import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { Nango } from "@nangohq/node";
import { TEST_SECRET_KEY } from "../support/embedded-junction.ts";
import { CAL, syncSource, useScriptsWorld } from "./scripts-kit.ts";

// GET /scripts/config: the deployed scripts as Nango's Node SDK reads them, and as OpenAI tools.
setDefaultTimeout(60_000);

const world = useScriptsWorld();

const INPUT = {
  type: "object",
  properties: { title: { type: "string" }, day: { type: "string" } },
  required: ["title"],
};
const action = `import { createAction } from "nango";
export default createAction({
  description: "Creates an event\\n- title: the event's title",
  input: ${JSON.stringify(INPUT)},
  output: { type: "object" },
  exec: async (nango, input) => ({ ok: true }),
});
`;

describe("GET /scripts/config", () => {
  test("nango.getScriptsConfig() reads every script, per integration, in both formats", async () => {
    const w = await world();
    await w.deploy("events", syncSource("return;"));
    await w.deploy("create-event", action);
    const nango = new Nango({ secretKey: TEST_SECRET_KEY, host: w.j.url });

    const config = (await nango.getScriptsConfig()) as any[];
    expect(config).toHaveLength(1);
    expect(config[0]).toMatchObject({ providerConfigKey: CAL, provider: "google-calendar", "on-events": [] });
    expect(config[0].syncs).toEqual([
      expect.objectContaining({ name: "events", type: "sync", runs: "1d", auto_start: expect.any(Boolean) }),
    ]);
    expect(config[0].actions).toEqual([
      expect.objectContaining({
        name: "create-event",
        type: "action",
        input: "Input",
        returns: ["Output"],
        json_schema: { definitions: { Input: INPUT, Output: { type: "object" } } },
      }),
    ]);

    const openai = (await nango.getScriptsConfig("openai")) as { data: any[] };
    expect(openai.data).toEqual([
      {
        name: "create-event",
        description: "Creates an event\n- title: the event's title",
        parameters: {
          type: "object",
          properties: { title: { type: "string", description: "the event's title" }, day: { type: "string" } },
          required: ["title"],
        },
      },
      {
        name: "events",
        description: "Execute the events sync for google-calendar",
        parameters: { type: "object", properties: {}, required: [] },
      },
    ]);
  });

  test("an unknown format is refused; no scripts is an empty list", async () => {
    const w = await world();
    const bad = await w.api("GET", "/scripts/config?format=xml");
    expect([bad.status, bad.body.error.code]).toEqual([400, "invalid_query_params"]);
    expect((await w.api("GET", "/scripts/config")).body).toEqual([]);
    expect((await w.api("GET", "/scripts/config?format=openai")).body).toEqual({ data: [] });
  });
});
