import { api, errorBox } from "../api.ts";
import { h, replace } from "../dom.ts";
import type { Integration, IntegrationSettingInfo, Provider } from "../types.ts";

/** One input per setting the provider takes: its label, description, default and documentation link. */
export function settingInputs(settings: IntegrationSettingInfo[], values: Record<string, string>): HTMLElement {
  return h(
    "div",
    { id: "provider-settings" },
    settings.map((s) => {
      const id = `setting-${s.key}`;
      return h(
        "div",
        { class: "setting", "data-setting": s.key },
        h("label", { for: id }, s.label, " ", h("code", { class: "muted" }, s.key)),
        h("input", {
          type: "text",
          id,
          name: "provider-setting",
          "data-key": s.key,
          value: values[s.key] ?? "",
          placeholder: s.default_value || "no default",
          autocomplete: "off",
          maxlength: 2048,
        }),
        h(
          "p",
          { class: "muted" },
          s.description,
          " ",
          h("span", { class: "setting-default" }, s.default_value ? `Default: ${s.default_value}.` : "No default."),
          s.docs_url ? [" ", h("a", { href: s.docs_url, target: "_blank", rel: "noopener" }, "Docs")] : null,
        ),
      );
    }),
  );
}

/** The values typed into `settingInputs`, by key ("" for one left empty: the default). */
export function settingValues(root: HTMLElement): Record<string, string> {
  const out: Record<string, string> = {};
  for (const input of Array.from(root.querySelectorAll<HTMLInputElement>('input[name="provider-setting"]'))) {
    out[input.dataset.key ?? ""] = input.value.trim();
  }
  return out;
}

/** What managed channels do for this provider, or why they cannot be switched on. */
function managedHint(provider: Provider | undefined): string {
  const channels = provider?.channels;
  if (!channels) return "This provider has no notification channels.";
  if (!channels.manageable) {
    return `Junction cannot create this provider's ${channels.kind}s itself: your scripts create and renew them.`;
  }
  return `Junction creates each connection's ${channels.kind} after it is authorized, renews it before it expires and stops it when the connection is deleted; no script needed. Off: your scripts do.`;
}

/**
 * The integration's provider settings (what its provider needs: a push audience and topic, a tenant)
 * and the managed channels switch, saved together with PATCH /integrations/{id}.
 */
export function providerSettingsCard(key: string, i: Integration, provider: Provider | undefined): HTMLElement {
  const settings = provider?.integration_settings ?? [];
  const inputs = settingInputs(settings, i.provider_settings ?? {});
  const manageable = provider?.channels?.manageable ?? false;
  const managed = h("input", {
    type: "checkbox",
    id: "managed-channels",
    checked: i.managed_channels ?? false,
    disabled: !manageable && !i.managed_channels,
  });
  // Sent only once changed: never set, it follows managed channels.
  let strictShown = i.strict_channels ?? false;
  const strict = h("input", { type: "checkbox", id: "strict-channels", checked: strictShown });
  const out = h("div", { id: "provider-settings-result" });
  const save = async (e: Event) => {
    e.preventDefault();
    replace(out);
    try {
      const { data } = await api<{ data: Integration }>("PATCH", `/integrations/${encodeURIComponent(key)}`, {
        ...(settings.length > 0 ? { provider_settings: settingValues(inputs) } : {}),
        managed_channels: managed.checked,
        ...(strict.checked !== strictShown ? { strict_channels: strict.checked } : {}),
      });
      managed.checked = data.managed_channels ?? false;
      strictShown = data.strict_channels ?? false;
      strict.checked = strictShown;
      replace(out, h("p", { class: "ok" }, "Saved."));
    } catch (err) {
      replace(out, errorBox(err, "provider-settings-error"));
    }
  };
  return h(
    "form",
    { class: "card", id: "provider-settings-form", onsubmit: save },
    h("h2", null, "Provider settings"),
    settings.length > 0
      ? inputs
      : h("p", { class: "muted", id: "no-provider-settings" }, "This provider needs no settings of its own."),
    h("h2", null, "Managed channels"),
    h("label", { class: "switch" }, managed, "Junction manages notification channels"),
    h("p", { class: "muted", id: "managed-channels-hint" }, managedHint(provider)),
    h("label", { class: "switch" }, strict, "Refuse notifications for unknown channels"),
    h(
      "p",
      { class: "muted", id: "strict-channels-hint" },
      "A notification whose channel Junction does not know is refused, not stored: a flood of made-up channel ids costs nothing. On by default with managed channels.",
    ),
    h("button", { type: "submit", id: "save-provider-settings" }, "Save"),
    out,
  );
}
