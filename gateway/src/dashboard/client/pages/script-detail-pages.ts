import { api, errorBox, qs } from "../api.ts";
import { h, hashLink, replace, when } from "../dom.ts";
import { type Cells, recordsTable, runRow } from "./scripts-page.ts";

type Row = Record<string, unknown>;

/** #/scripts/{integration}/{name}: every version of a script, the latest source, and its latest runs. */
export async function scriptPage(key: string, name: string): Promise<Node> {
  const path = `/scripts/${encodeURIComponent(key)}/${encodeURIComponent(name)}`;
  const script = (await api<{ data: Row & { versions: Row[]; source: string } }>("GET", path)).data;
  const runs = (
    await api<{ data: Row[] }>("GET", `/scripts/runs${qs({ provider_config_key: key, script: name, limit: 20 })}`)
  ).data;
  const versionRow = (v: Row): Cells => ({
    Version: String(v.version),
    Kind: v.kind as string,
    File: v.filename as string,
    "Source hash": h("code", { title: String(v.source_hash) }, String(v.source_hash).slice(0, 12)),
    Deployed: when(v.created_at as string),
  });
  return h(
    "section",
    null,
    h("h1", null, `${key} / ${name}`),
    scriptActions(key, name, String(script.kind)),
    h("h2", null, "Versions"),
    h("div", { class: "card", id: "script-versions" }, recordsTable(script.versions.map(versionRow), "versions-table")),
    h("h2", null, "Latest runs"),
    h("div", { class: "card" }, recordsTable(runs.map(runRow), "script-runs")),
    h("h2", null, `Source (version ${String(script.version)})`),
    h("pre", { class: "logs", id: "script-source" }, script.source),
  );
}

/** #/scripts/runs/{id}: one run with its logs, each line with its level. */
export async function scriptRunPage(id: string): Promise<Node> {
  const run = (await api<{ data: Row & { logs?: Row[] } }>("GET", `/scripts/runs/${encodeURIComponent(id)}`)).data;
  const { logs, output, input, ...fields } = run;
  const lines = (logs ?? []).map((l) =>
    h(
      "div",
      { class: `log-line log-${String(l.level)}` },
      h("span", { class: "muted" }, `${String(l.at)} `),
      h("strong", null, `${String(l.level).toUpperCase()} `),
      String(l.message),
    ),
  );
  return h(
    "section",
    null,
    h("h1", { class: "run-title" }, `Run ${id}`),
    h(
      "p",
      null,
      h("a", { id: "run-operations", href: hashLink("/logs", { tag: `run:${id}` }) }, "Its operation in the log →"),
    ),
    h("div", { class: "card" }, recordsTable([runRow(fields)], "run-fields")),
    run.status === "running" ? cancelButton(id) : null,
    // An action's call: what it was called with, and its result (what POST /action/trigger answered).
    input === undefined ? null : h("h2", null, "Input"),
    input === undefined ? null : h("pre", { class: "logs", id: "run-input" }, JSON.stringify(input, null, 2)),
    output === undefined ? null : h("h2", null, "Output"),
    output === undefined ? null : h("pre", { class: "logs", id: "run-output" }, JSON.stringify(output, null, 2)),
    h("h2", null, "Logs"),
    h(
      "div",
      { class: "card logs", id: "run-logs" },
      lines.length > 0 ? lines : h("p", { class: "muted" }, "No log lines."),
      run.logs_truncated ? h("p", { class: "muted" }, "(logs truncated)") : null,
    ),
  );
}

/** Cancels a running run (POST /scripts/runs/{id}/cancel), then shows the page again with its end. */
function cancelButton(id: string): Node {
  const out = h("p", { class: "muted", id: "cancel-result" });
  const button = h("button", { type: "button", class: "secondary", id: "cancel-run" }, "Cancel run");
  button.addEventListener("click", async () => {
    button.setAttribute("disabled", "");
    try {
      await api("POST", `/scripts/runs/${encodeURIComponent(id)}/cancel`);
      const page = button.closest("section");
      page?.replaceWith(await scriptRunPage(id));
    } catch (err) {
      out.textContent = err instanceof Error ? err.message : String(err);
      button.removeAttribute("disabled");
    }
  });
  return h("div", { class: "row" }, button, out);
}

/**
 * Run (a sync, for every connection of the integration: POST /sync/trigger) and Remove (every version,
 * after typing the name: DELETE /scripts/{integration}/{name}). Actions and on-event scripts run when
 * called or when their event happens, so they get no Run button.
 */
function scriptActions(key: string, name: string, kind: string): Node {
  const out = h("div", { id: "script-action-result" });
  const run = h("button", { type: "button", id: "run-script" }, "Run now for every connection");
  run.addEventListener("click", async () => {
    replace(out);
    run.disabled = true;
    try {
      const res = await api<{ runs: { id: string; connection_id: string }[]; queued: unknown[] }>(
        "POST",
        "/sync/trigger",
        { provider_config_key: key, syncs: [name] },
      );
      replace(
        out,
        h(
          "p",
          { class: "ok", id: "run-started" },
          res.runs.length === 0 && res.queued.length === 0
            ? "No connection to run it for."
            : `Started ${res.runs.length} run(s), queued ${res.queued.length}: `,
          res.runs.map((r) => [h("a", { href: `#/scripts/runs/${encodeURIComponent(r.id)}` }, r.connection_id), " "]),
        ),
      );
    } catch (err) {
      replace(out, errorBox(err));
    }
    run.disabled = false;
  });
  const typed = h("input", { type: "text", id: "remove-script-typed", placeholder: `Type ${name} to remove` });
  const remove = h("button", { type: "button", class: "danger", id: "remove-script" }, "Remove every version");
  remove.addEventListener("click", async () => {
    replace(out);
    if (typed.value !== name) {
      replace(out, h("p", { class: "error" }, `Type the script's name (${name}) to confirm.`));
      return;
    }
    remove.disabled = true;
    try {
      await api("DELETE", `/scripts/${encodeURIComponent(key)}/${encodeURIComponent(name)}`);
      location.hash = hashLink("/scripts", { removed: name });
    } catch (err) {
      replace(out, errorBox(err));
      remove.disabled = false;
    }
  });
  return h("div", { class: "card" }, h("div", { class: "row" }, kind === "sync" ? run : null, typed, remove), out);
}
