import { ApiError, api, errorBox, qs } from "../api.ts";
import { h, jsonBlock, replace } from "../dom.ts";

/**
 * Runs a tool's action on a connection from the dashboard (POST /action/trigger, recorded as the
 * dashboard's call) and shows its output, or its failure, with a link to the run.
 */
export function toolRunForm(key: string, tool: string): HTMLElement {
  const connection = h("input", { type: "text", class: "tool-connection", placeholder: "Connection id" });
  const input = h("textarea", { class: "tool-input", spellcheck: "false", "aria-label": "Input (JSON)" }, "{}");
  const out = h("div", { class: "tool-result" });
  const run = h("button", { type: "button", class: "tool-run" }, "Run");
  run.addEventListener("click", async () => {
    replace(out);
    let parsed: unknown;
    try {
      parsed = JSON.parse(input.value || "null");
    } catch {
      replace(out, h("p", { class: "error" }, "The input is not JSON."));
      return;
    }
    run.disabled = true;
    const connectionId = connection.value.trim();
    try {
      const output = await api(
        "POST",
        "/action/trigger",
        { action_name: tool, input: parsed },
        {
          "connection-id": connectionId,
          "provider-config-key": key,
        },
      );
      replace(out, h("h3", null, "Output"), jsonBlock(output), await runLink(key, tool, connectionId));
    } catch (err) {
      const runId = err instanceof ApiError ? runIdOf(err) : undefined;
      replace(
        out,
        errorBox(err),
        runId ? h("a", { class: "tool-run-link", href: `#/scripts/runs/${runId}` }, "Its run →") : null,
      );
    }
    run.disabled = false;
  });
  return h(
    "div",
    { class: "tool-run-form" },
    h("h3", null, "Run it"),
    h("div", { class: "row" }, connection, run),
    input,
    out,
  );
}

/** The newest run of the tool on the connection: the one just answered. */
async function runLink(key: string, tool: string, connectionId: string): Promise<Node | null> {
  const query = qs({ provider_config_key: key, script: tool, connection_id: connectionId, limit: 1 });
  const [latest] = (await api<{ data: { id: string }[] }>("GET", `/scripts/runs${query}`)).data;
  return latest ? h("a", { class: "tool-run-link", href: `#/scripts/runs/${latest.id}` }, "Its run →") : null;
}

function runIdOf(err: ApiError): string | undefined {
  const match = /run_[A-Za-z0-9]+/.exec(err.message);
  return match?.[0];
}
