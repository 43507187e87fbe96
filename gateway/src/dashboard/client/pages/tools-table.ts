import { api } from "../api.ts";
import { h, jsonBlock } from "../dom.ts";

interface Tool {
  name: string;
  description?: string;
  inputSchema: unknown;
  outputSchema?: unknown;
}

/** An integration's MCP tools (GET /integrations/{id}/tools, what POST /mcp's tools/list answers), schemas folded. */
export async function toolsTable(key: string): Promise<Node> {
  const { data } = await api<{ data: Tool[] }>("GET", `/integrations/${encodeURIComponent(key)}/tools`);
  if (data.length === 0) {
    return h("p", { class: "muted" }, "No tools: deploy an action (with an object input) to offer one over POST /mcp.");
  }
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
      ),
    ),
  );
}
