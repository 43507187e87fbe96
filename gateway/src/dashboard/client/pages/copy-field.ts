import { breakable, h } from "../dom.ts";

/** Copies text: the Clipboard API where the page may use it, else a selection and the copy command. */
async function copyText(text: string): Promise<boolean> {
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    // Falls back below (permission refused, no focus).
  }
  const area = h("textarea", { readonly: true, class: "offscreen" }, text);
  area.style.position = "fixed";
  area.style.opacity = "0";
  document.body.appendChild(area);
  area.select();
  const ok = document.execCommand("copy");
  area.remove();
  return ok;
}

/** A value shown in full with a copy button (`id` is the value's element; the button is `copy-<id>`). */
export function copyField(id: string, value: string): HTMLElement {
  const status = h("span", { class: "muted", id: `copy-${id}-status`, role: "status" });
  const button = h("button", { type: "button", class: "secondary", id: `copy-${id}` }, "Copy");
  button.addEventListener("click", async () => {
    const ok = await copyText(value);
    status.textContent = ok ? "Copied." : "Could not copy: select the text and copy it.";
    status.dataset.copied = ok ? value : "";
  });
  return h("div", { class: "copy-field" }, h("code", { id }, breakable(value)), button, status);
}

/** A new signing secret, shown this once, with a copy button. */
export function secretShownOnce(secret: string): Node {
  return h(
    "div",
    { class: "hint", id: "new-secret" },
    h("p", null, "The new signing secret, shown this once: keep it where your webhook receiver reads it."),
    copyField("signing-secret-value", secret),
  );
}
