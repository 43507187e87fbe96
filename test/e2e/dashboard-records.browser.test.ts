import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { TEST_SECRET_KEY } from "../support/embedded-junction.ts";
import { goTo, launchChromium, logIn } from "./dashboard-browser-kit.ts";
import { screenshotsLightAndDark } from "./dashboard-themes.ts";
import { CAL, useScriptsWorld } from "./scripts-kit.ts";

// The record browser (Debian's Chromium): a connection's models with their counts, a model's records
// paged with the cursor and filtered by last action, each record's JSON with its _nango_metadata.
setDefaultTimeout(180_000);

const world = useScriptsWorld();

/** Saves 25 tasks on its first run; on the next, updates task-1 and deletes task-2. */
const SYNC = `import { createSync } from "nango";
export default createSync({
  frequency: "1d",
  models: { Task: { type: "object", properties: { id: { type: "string" }, title: { type: "string" } }, required: ["id", "title"] } },
  exec: async (nango) => {
    const again = (await nango.getCheckpoint()) !== null;
    if (!again) {
      await nango.batchSave(Array.from({ length: 25 }, (_, i) => ({ id: "task-" + i, title: "Task " + i })), "Task");
    } else {
      await nango.batchSave([{ id: "task-1", title: "Task 1, renamed" }], "Task");
      await nango.batchDelete([{ id: "task-2" }], "Task");
    }
    await nango.saveCheckpoint({ done: true });
  },
});
`;

describe("the record browser", () => {
  test("lists models with counts, pages through records, filters by last action, shows a record's JSON", async () => {
    const w = await world();
    await w.connect("alice");
    await w.deploy("tasks", SYNC);
    for (const n of [1, 2]) {
      const res = await w.api("POST", "/sync/trigger", {
        provider_config_key: CAL,
        connection_id: "alice",
        syncs: ["tasks"],
      });
      expect(res.status).toBe(200);
      const runs = await w.finishedRuns({ script: "tasks", connection_id: "alice" }, n);
      expect(runs[n - 1].status).toBe("succeeded");
    }
    const models = await w.api("GET", "/records/models", undefined, {
      "connection-id": "alice",
      "provider-config-key": CAL,
    });
    expect(models.body.data).toMatchObject([{ model: "Task", count: 25 }]);
    const unknown = await w.api("GET", "/records/models", undefined, {
      "connection-id": "nobody",
      "provider-config-key": CAL,
    });
    expect([unknown.status, unknown.body.error.code]).toEqual([400, "unknown_connection"]);

    const browser = await launchChromium();
    try {
      const page = browser.page;
      await logIn(page, w.j.url, TEST_SECRET_KEY);
      await goTo(page, `#/connections/${CAL}/alice`, "connections");
      await page.waitForSelector('#record-models tr[data-model="Task"]');
      expect(await page.textContent('#record-models tr[data-model="Task"] .record-count')).toBe("25");
      await page.click('#record-models tr[data-model="Task"] a');
      await page.waitForSelector("#records #record-list");

      const ids = async () =>
        page.$$eval("#record-list details", (ds) => ds.map((d) => (d as HTMLElement).dataset.recordId));
      const first = await ids();
      expect(first).toHaveLength(20);
      await page.click("#records-next");
      await page.waitForSelector("#records .pager :text('End of the records.')");
      const second = await ids();
      expect(second).toHaveLength(5);
      expect(new Set([...first, ...second]).size).toBe(25);
      // Ordered by last change: the two changed by the second run come last.
      expect(second.slice(-2).sort()).toEqual(["task-1", "task-2"]);

      await page.selectOption("#record-filter", "deleted");
      await page.waitForFunction(() => location.hash.includes("filter=deleted"));
      await page.waitForSelector('#record-list details[data-record-id="task-2"]');
      expect(await ids()).toEqual(["task-2"]);
      await page.click('#record-list details[data-record-id="task-2"] summary');
      const json = JSON.parse((await page.textContent('#record-list details[data-record-id="task-2"] pre')) ?? "{}");
      expect(json).toMatchObject({ id: "task-2", title: "Task 2", _nango_metadata: { last_action: "DELETED" } });
      expect(Date.parse(json._nango_metadata.deleted_at)).toBeGreaterThan(0);

      await page.selectOption("#record-filter", "updated");
      await page.waitForFunction(() => location.hash.includes("filter=updated"));
      await page.waitForSelector('#record-list details[data-record-id="task-1"]');
      expect(await ids()).toEqual(["task-1"]);
      await page.click('#record-list details[data-record-id="task-1"] summary');
      await screenshotsLightAndDark(page, "records");
    } finally {
      await browser.close();
    }
  });
});
