import { api, qs } from "../api.ts";
import { h, jsonBlock } from "../dom.ts";
import { recordsTable, runRow } from "./scripts-page.ts";
import { toolRunForm } from "./tool-run-form.ts";

interface Tool {
  name: string;
  description?: string;
  inputSchema: unknown;
  outputSchema?: unknown;
}

/**
 * An integration's MCP tools (GET /integrations/{id}/tools, what POST /mcp's tools/list answers), schemas
 * folded, each with a form that runs it; then its latest calls (action runs: who called, how it ended).
 */
export async function toolsTable(key: string): Promise<Node> {
  const { data } = await api<{ data: Tool[] }>("GET", `/integrations/${encodeURIComponent(key)}/tools`);
  if (data.length === 0) {
    return h("p", { class: "muted" }, "No tools: deploy an action (with an object input) to offer one over POST /mcp.");
  }
  const calls = await api<{ data: Record<string, unknown>[] }>(
    "GET",
    `/scripts/runs${qs({ provider_config_key: key, trigger: "action", limit: 20 })}`,
  );
  return h(
    "div",
    null,
    toolList(key, data),
    h("h3", null, "Latest calls"),
    recordsTable(calls.data.map(runRow), "tool-calls"),
  );
}

function toolList(key: string, data: Tool[]): Node {
  return h(
    "div",
    { id: "tools" },
    data.map((t) =>
      h(
        "details",
        { class: "tool", "data-tool": t.name },
        h("summary", null, h("code", null, t.name), " ", h("span", { class: "muted" }, t.description ?? "")),
        h("h3", null, "Input schema"),
        jsonBlock(t.inputSchema),
        h("h3", null, "Output schema"),
        t.outputSchema ? jsonBlock(t.outputSchema) : h("p", { class: "muted" }, "None declared: text output only."),
        toolRunForm(key, t.name),
      ),
    ),
  );
}
