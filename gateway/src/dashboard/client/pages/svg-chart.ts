import { h } from "../dom.ts";

const SVG = "http://www.w3.org/2000/svg";

/** One series of a chart: its values (one per point; null: no value), its name and its colour class. */
export interface ChartSeries {
  key: string;
  label: string;
  values: (number | null)[];
  /** c1…c6: a colour of the stylesheet's chart palette (light and dark). */
  color: string;
}

export interface ChartOptions {
  id: string;
  title: string;
  /** Bars stacked per point (counts), or lines (latencies, rates that overlap). */
  kind: "stacked" | "lines";
  times: string[];
  series: ChartSeries[];
  /** Shown after each number: "" for counts, " ms" for latencies. */
  unit?: string;
  /** What each legend entry's figure is: the period's sum (counts) or a figure given by the caller. */
  legendFigures?: Record<string, string>;
}

const W = 600;
const H = 160;

function el<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | number>,
): SVGElementTagNameMap[K] {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  return e;
}

const fmt = (n: number) => (Number.isInteger(n) ? String(n) : n.toFixed(1));
const timeText = (iso: string | undefined) =>
  iso
    ? new Date(iso).toLocaleString(undefined, { month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" })
    : "";

/**
 * A chart in plain SVG: the drawing stretches to the card's width (a viewBox without aspect ratio),
 * the text (scale, legend, time range) is HTML beside it, so it stays readable at any width. Each
 * point carries a <title> with its time and values.
 */
export function svgChart(o: ChartOptions): HTMLElement {
  const n = o.times.length;
  const unit = o.unit ?? "";
  const pointMax = (i: number) =>
    o.kind === "stacked"
      ? o.series.reduce((s, x) => s + (x.values[i] ?? 0), 0)
      : Math.max(0, ...o.series.map((x) => x.values[i] ?? 0));
  const max = Math.max(0, ...Array.from({ length: n }, (_, i) => pointMax(i)));
  const scale = max === 0 ? 1 : max * 1.1;
  const svg = el("svg", { viewBox: `0 0 ${W} ${H}`, preserveAspectRatio: "none", role: "img" });
  svg.setAttribute("aria-label", o.title);
  svg.dataset.chart = o.id;
  svg.dataset.max = String(max);
  for (const f of [0.5, 1])
    svg.appendChild(el("line", { x1: 0, x2: W, y1: H - (H / 1.1) * f, y2: H - (H / 1.1) * f, class: "grid" }));
  const step = W / Math.max(1, n);
  if (o.kind === "stacked") drawBars(svg, o, step, scale, unit);
  else drawLines(svg, o, step, scale, unit);
  const legend = h(
    "ul",
    { class: "legend" },
    o.series.map((s) => {
      const sum = s.values.reduce<number>((t, v) => t + (v ?? 0), 0);
      const figure = o.legendFigures?.[s.key] ?? `${fmt(sum)}${unit}`;
      return h(
        "li",
        { "data-series": s.key, "data-total": String(sum) },
        h("span", { class: `swatch ${s.color}` }),
        `${s.label} `,
        h("strong", null, figure),
      );
    }),
  );
  return h(
    "figure",
    { class: "chart", id: `chart-${o.id}` },
    h("figcaption", null, h("span", null, o.title), h("span", { class: "muted scale" }, `max ${fmt(max)}${unit}`)),
    svg,
    h("div", { class: "chart-range muted" }, h("span", null, timeText(o.times[0])), h("span", null, "now")),
    legend,
  );
}

function drawBars(svg: SVGSVGElement, o: ChartOptions, step: number, scale: number, unit: string): void {
  const gap = step > 4 ? 1 : 0;
  for (let i = 0; i < o.times.length; i++) {
    let y = H;
    const g = el("g", {});
    const parts: string[] = [];
    for (const s of o.series) {
      const v = s.values[i] ?? 0;
      if (v <= 0) continue;
      const height = (v / scale) * H;
      y -= height;
      g.appendChild(
        el("rect", { x: i * step + gap / 2, y, width: step - gap, height, class: s.color, "data-series": s.key }),
      );
      parts.push(`${s.label}: ${fmt(v)}${unit}`);
    }
    if (parts.length === 0) continue;
    const title = el("title", {});
    title.textContent = `${timeText(o.times[i])}\n${parts.join("\n")}`;
    g.appendChild(title);
    svg.appendChild(g);
  }
}

function drawLines(svg: SVGSVGElement, o: ChartOptions, step: number, scale: number, unit: string): void {
  for (const s of o.series) {
    // A series that stayed at zero draws nothing (its legend says 0): lines along the axis hide each other.
    if (!s.values.some((v) => (v ?? 0) > 0)) continue;
    // A line is broken where a point has no value (no call in that minute), not drawn down to zero.
    let run: string[] = [];
    const flush = () => {
      if (run.length > 0) {
        svg.appendChild(el("polyline", { points: run.join(" "), class: `line ${s.color}`, "data-series": s.key }));
      }
      run = [];
    };
    for (const [i, v] of s.values.entries()) {
      if (v === null) {
        flush();
        continue;
      }
      const x = i * step + step / 2;
      const y = H - (v / scale) * H;
      run.push(`${x},${y}`);
      if (v === 0) continue;
      // A zero-length path with round caps and a stroke that does not scale: a round dot however the
      // drawing is stretched (a circle would be stretched into an ellipse).
      const dot = el("path", { d: `M${x} ${y}h0`, class: `dot ${s.color}`, "data-series": s.key });
      const title = el("title", {});
      title.textContent = `${timeText(o.times[i])}\n${s.label}: ${fmt(v)}${unit}`;
      dot.appendChild(title);
      svg.appendChild(dot);
    }
    flush();
  }
}
