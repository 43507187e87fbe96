import { api, errorBox } from "../api.ts";
import { h, replace } from "../dom.ts";

/**
 * A known metadata key and its type (spec: Resources, Connection; checked again by the service): the
 * spec's and those the providers declare, as the dashboard's session answer lists them.
 */
export interface MetadataKey {
  key: string;
  type: "string" | "string[]";
  description: string;
  match_key?: string;
}

/** Problems with a metadata text, before it is sent: not JSON, not an object, a known key of the wrong type. */
export function metadataProblems(
  text: string,
  keys: readonly MetadataKey[],
): { metadata?: Record<string, unknown>; problems: string[] } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { problems: [`Not valid JSON: ${(err as Error).message}`] };
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return { problems: ["Metadata must be a JSON object ({...})."] };
  }
  const metadata = value as Record<string, unknown>;
  const problems: string[] = [];
  for (const { key: k, type } of keys) {
    const v = metadata[k];
    if (!(k in metadata) || v === null) continue;
    if (type === "string" && typeof v !== "string") problems.push(`${k} must be a string.`);
    if (type === "string[]" && !(Array.isArray(v) && v.every((x) => typeof x === "string"))) {
      problems.push(`${k} must be an array of strings.`);
    }
  }
  return { metadata, problems };
}

/**
 * The metadata editor: the whole object as JSON, saved with POST /connections/metadata, which
 * replaces it (keys removed here are removed). Checked here first, then by the service.
 */
export function metadataEditor(
  key: string,
  connectionId: string,
  metadata: Record<string, unknown>,
  keys: readonly MetadataKey[],
): HTMLElement {
  const area = h("textarea", { id: "metadata", spellcheck: "false", "aria-label": "Metadata (JSON)" });
  area.value = JSON.stringify(metadata, null, 2);
  const out = h("div", { id: "metadata-result" });
  const save = h("button", { type: "submit", id: "save-metadata" }, "Save metadata");
  const submit = async (e: Event) => {
    e.preventDefault();
    replace(out);
    const checked = metadataProblems(area.value, keys);
    if (!checked.metadata || checked.problems.length > 0) {
      replace(
        out,
        h("div", { class: "error", role: "alert", "data-code": "invalid_metadata_local" }, checked.problems.join("\n")),
      );
      return;
    }
    save.disabled = true;
    try {
      await api("POST", "/connections/metadata", {
        connection_id: connectionId,
        provider_config_key: key,
        metadata: checked.metadata,
      });
      area.value = JSON.stringify(checked.metadata, null, 2);
      replace(out, h("p", { class: "ok", id: "metadata-saved" }, "Saved. The metadata is now exactly this object."));
    } catch (err) {
      replace(out, errorBox(err, "metadata-error"));
    } finally {
      save.disabled = false;
    }
  };
  return h(
    "form",
    { class: "card", id: "metadata-form", onsubmit: submit },
    h("h2", null, "Metadata"),
    h(
      "p",
      { class: "muted" },
      `Saving replaces the whole object: a key removed here is removed from the connection. Known keys: ${keys
        .map((k) => `${k.key} (${k.type === "string[]" ? "strings" : "a string"}: ${k.description})`)
        .join(", ")}.`,
    ),
    area,
    h("div", { class: "row" }, save),
    out,
  );
}
