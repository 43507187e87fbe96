import { type Child, h, replace } from "../../dashboard/client/dom.ts";
import type { Integration, Session } from "./api.ts";
import { fill, type Words } from "./i18n.ts";
import { framed, post } from "./parent.ts";

/** What every step reads: the session, its words, and how the UI was opened. */
export interface App {
  token: string;
  session: Session;
  integrations: Integration[];
  words: Words;
  /** The SDK's `detectClosedAuthWindow`: a closed sign-in window is then reported as an `error` event. */
  detectClosedAuthWindow: boolean;
}

export const root = () => document.getElementById("connect") as HTMLElement;

/** Closes the UI: the framing page removes the frame on `close` (a page of its own stays). */
export function close(): void {
  post({ type: "close" });
}

/** The step indicator: Choose → Sign in → Done, `at` being the current one (0-based). */
function steps(words: Words, at: number): HTMLElement {
  const names = [words.stepChoose, words.stepSignIn, words.stepDone];
  return h(
    "ol",
    { class: "steps", "aria-label": "Progress" },
    names.map((n, i) =>
      h("li", { class: i < at ? "done" : i === at ? "current" : "", "aria-current": i === at ? "step" : null }, n),
    ),
  );
}

export interface Shell {
  words: Words;
  /** The step shown in the indicator; none for a screen outside the steps (an error). */
  step?: number;
  onBack?: () => void;
  /** The content centred in the card (a screen with little on it). */
  center?: boolean;
  content: Child[];
}

/** Renders a screen: the bar (back, close), the steps, the content; then focuses its heading. */
export function render(s: Shell): void {
  const bar = h(
    "div",
    { class: "bar" },
    s.onBack ? h("button", { type: "button", class: "ghost back", onclick: s.onBack }, `← ${s.words.back}`) : h("span"),
    framed
      ? h(
          "button",
          { type: "button", class: "ghost icon", "aria-label": s.words.close, title: s.words.close, onclick: close },
          "×",
        )
      : null,
  );
  const el = root();
  el.setAttribute("aria-busy", "false");
  replace(
    el,
    bar,
    s.step === undefined ? null : steps(s.words, s.step),
    h("div", { class: s.center ? "body center" : "body" }, s.content),
  );
  (el.querySelector<HTMLElement>("[autofocus]") ?? el.querySelector<HTMLElement>("h1"))?.focus();
}

/** A round badge with the provider's initial, coloured from its name (no logo is fetched from anywhere). */
export function avatar(name: string, provider: string, size: "small" | "large" = "small"): HTMLElement {
  let hash = 0;
  for (const c of provider) hash = (hash * 31 + c.charCodeAt(0)) >>> 0;
  const initial = (name.trim()[0] ?? "?").toUpperCase();
  const el = h("span", { class: `avatar ${size}`, "aria-hidden": "true" }, initial);
  // Set through the CSSOM: the page's policy allows no style attribute.
  el.style.setProperty("--hue", String(hash % 360));
  return el;
}

/** `words[key]` with `{name}` (and other values) filled in. */
export function say(words: Words, key: keyof Words, values: Record<string, string> = {}): string {
  return fill(words[key], values);
}
