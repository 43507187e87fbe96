/** The median of some numbers (the mean of the middle two for an even count). */
export function median(values: number[]): number {
  if (values.length === 0) return Number.NaN;
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

/** `a / b` as "0.93×". */
export function ratio(a: number, b: number): string {
  return `${(a / b).toFixed(2)}×`;
}

/** A Markdown table. */
export function table(header: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.join(" | ")} |`;
  return [line(header), line(header.map(() => "---")), ...rows.map(line)].join("\n");
}

/** `K=V,K2=V2` as an environment (an unset variable: none): BENCH_COMPARE_ENV, BENCH_EMBEDDED_ENV. */
export function envList(list: string | undefined): Record<string, string> {
  return Object.fromEntries(
    (list ?? "")
      .split(",")
      .filter((kv) => kv.includes("="))
      .map((kv) => [kv.slice(0, kv.indexOf("=")), kv.slice(kv.indexOf("=") + 1)]),
  );
}
