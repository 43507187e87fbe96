/** What `h` accepts as children: text is always set as text, never parsed as HTML. */
export type Child = Node | string | number | null | undefined | false | Child[];
type Attrs = Record<string, unknown>;

/**
 * Builds an element. `on<event>` attributes add listeners; `value`, `checked`, `disabled` and
 * `selected` are set as properties; `true` sets a boolean attribute, `false`/`null`/`undefined` omit it.
 */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs | null = null,
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on") && typeof value === "function") {
      el.addEventListener(name.slice(2).toLowerCase(), value as EventListener);
    } else if (name === "value" || name === "checked" || name === "disabled" || name === "selected") {
      (el as unknown as Record<string, unknown>)[name] = value;
    } else {
      el.setAttribute(name, value === true ? "" : String(value));
    }
  }
  append(el, children);
  return el;
}

function append(el: Node, children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else el.appendChild(typeof c === "string" || typeof c === "number" ? document.createTextNode(String(c)) : c);
  }
}

/** Replaces an element's children. */
export function replace(el: Element, ...children: Child[]): void {
  el.replaceChildren();
  append(el, children);
}

/** A date as local, readable text; "—" for none. */
export function when(iso: string | null | undefined): string {
  if (!iso) return "—";
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString();
}

/** A duration as readable text: "7 ms", "1.2 s", "3 min 5 s"; "—" for none. */
export function duration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return "—";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)} min ${s % 60} s`;
}

/** A small coloured label; `kind` picks the colour (a status, a sensitivity...). */
export function badge(text: string, kind = text): HTMLSpanElement {
  return h("span", { class: `badge ${kind}` }, text);
}

/** Pretty JSON in a <pre>. */
export function jsonBlock(value: unknown, id?: string): HTMLPreElement {
  return h("pre", { id }, JSON.stringify(value, null, 2));
}

/** Label → value rows. */
export function fields(rows: [string, Child][]): HTMLDListElement {
  return h("dl", { class: "fields" }, ...rows.flatMap(([k, v]) => [h("dt", null, k), h("dd", null, v)]));
}

/** The current hash route's query (after `?`). */
export function hashQuery(): URLSearchParams {
  const hash = location.hash;
  const at = hash.indexOf("?");
  return new URLSearchParams(at < 0 ? "" : hash.slice(at + 1));
}

/** A hash link with a query, leaving out empty values. */
export function hashLink(path: string, query: Record<string, string | number | undefined> = {}): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== "") q.set(k, String(v));
  const s = q.toString();
  return `#${path}${s ? `?${s}` : ""}`;
}

/** The dashboard's link to a connection's page: `#/connections/{integration}/{connection id}`. */
export function connectionHref(integration: string, connectionId: string): string {
  return hashLink(`/connections/${encodeURIComponent(integration)}/${encodeURIComponent(connectionId)}`);
}

/** A link to a connection's page, reading its id. */
export function connectionLink(integration: string, connectionId: string): HTMLElement {
  return h("a", { href: connectionHref(integration, connectionId) }, connectionId);
}

/** A URL or path with line-break opportunities after each "/" (its text is unchanged), so it wraps between parts, not mid-word. */
export function breakable(text: string): Child[] {
  return text.split(/(?<=\/)/).flatMap((part, i) => (i === 0 ? [part] : [h("wbr"), part]));
}
