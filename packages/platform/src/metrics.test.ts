import { describe, expect, test } from "bun:test";
import { MetricsRegistry } from "./metrics.ts";
import { metricsResponse } from "./metrics-endpoint.ts";

describe("MetricsRegistry", () => {
  test("writes counters and gauges with HELP and TYPE lines, sorted by name", async () => {
    const r = new MetricsRegistry();
    const c = r.counter("junction_events_total", "Events seen.", ["kind", "outcome"]);
    c.inc("a", "ok");
    c.inc("a", "ok");
    c.add(3, "b", "failed");
    r.gauge("junction_depth", "Queue depth.").set(7);
    expect(await r.render()).toBe(
      [
        "# HELP junction_depth Queue depth.",
        "# TYPE junction_depth gauge",
        "junction_depth 7",
        "# HELP junction_events_total Events seen.",
        "# TYPE junction_events_total counter",
        'junction_events_total{kind="a",outcome="ok"} 2',
        'junction_events_total{kind="b",outcome="failed"} 3',
        "",
      ].join("\n"),
    );
  });

  test("writes histograms as cumulative le buckets with +Inf, sum and count", async () => {
    const r = new MetricsRegistry();
    const h = r.histogram("junction_latency_seconds", "Latency.", ["route"], [0.1, 1, 0.5]);
    h.observe(0.05, "/x");
    h.observe(0.3, "/x");
    h.observe(0.7, "/x");
    h.observe(2, "/x");
    const text = await r.render();
    expect(text).toContain("# TYPE junction_latency_seconds histogram");
    expect(text).toContain(
      [
        'junction_latency_seconds_bucket{route="/x",le="0.1"} 1',
        'junction_latency_seconds_bucket{route="/x",le="0.5"} 2',
        'junction_latency_seconds_bucket{route="/x",le="1"} 3',
        'junction_latency_seconds_bucket{route="/x",le="+Inf"} 4',
        'junction_latency_seconds_sum{route="/x"} 3.05',
        'junction_latency_seconds_count{route="/x"} 4',
      ].join("\n"),
    );
  });

  test("escapes backslashes, quotes and newlines in label values and help", async () => {
    const r = new MetricsRegistry();
    r.counter("junction_x_total", "Line one\nline \\two", ["v"]).inc('a"b\\c\nd');
    const text = await r.render();
    expect(text).toContain("# HELP junction_x_total Line one\\nline \\\\two");
    expect(text).toContain('junction_x_total{v="a\\"b\\\\c\\nd"} 1');
  });

  test("gives the same metric for the same name, and refuses another kind or labels", () => {
    const r = new MetricsRegistry();
    const a = r.counter("junction_a_total", "A.", ["x"]);
    expect(r.counter("junction_a_total", "A.", ["x"])).toBe(a);
    expect(() => r.gauge("junction_a_total", "A.", ["x"])).toThrow();
    expect(() => r.counter("junction_a_total", "A.", ["y"])).toThrow();
    expect(() => r.counter("bad name", "B.")).toThrow();
    expect(() => r.histogram("junction_h", "H.", ["le"])).toThrow();
    expect(() => a.inc("1", "2")).toThrow();
  });

  test("keeps apart series whose label values would read alike joined, and counts each series once", async () => {
    const registry = new MetricsRegistry();
    const c = registry.counter("t_total", "T.", ["a", "b"]);
    c.inc("x\u0001y", "z");
    c.inc("x", "y\u0001z");
    c.inc("x", "y\u0001z");
    expect(c.value("x\u0001y", "z")).toBe(1);
    expect(c.value("x", "y\u0001z")).toBe(2);
    expect(c.value("x")).toBe(0);
    const text = await registry.render();
    expect(text.split("\n").filter((l) => l.startsWith("t_total{"))).toHaveLength(2);
    const g = registry.gauge("g", "G.");
    g.set(3);
    g.reset();
    g.add(1);
    expect(g.value()).toBe(1);
  });

  test("finds each series of up to four labels by its values, and refuses a fifth label name", () => {
    const r = new MetricsRegistry();
    const c = r.counter("junction_four_total", "Four labels.", ["a", "b", "c", "d"]);
    c.inc("1", "2", "3", "4");
    c.inc("1", "2", "3", "4");
    c.inc("1", "2", "3", "5");
    c.add(2, "1", "9", "3", "4");
    expect([c.value("1", "2", "3", "4"), c.value("1", "2", "3", "5"), c.value("1", "9", "3", "4")]).toEqual([2, 1, 2]);
    expect(() => c.inc("1", "2", "3")).toThrow("takes 4 label values, got 3");
    const h = r.histogram("junction_one_seconds", "One label.", ["route"]);
    h.observe(0.2, "/x");
    h.observe(0.3, "/y");
    h.observe(0.4, "/x");
    expect([h.count("/x"), h.count("/y")]).toEqual([2, 1]);
    expect(() => r.counter("junction_five_total", "Five.", ["a", "b", "c", "d", "e"])).toThrow(
      "more than 4 label names",
    );
  });

  test("runs collectors before a scrape and survives a failing one", async () => {
    const r = new MetricsRegistry();
    const g = r.gauge("junction_pending", "Pending.");
    let depth = 1;
    r.onCollect(() => g.set(depth));
    r.onCollect(() => {
      throw new Error("store down");
    });
    expect(await r.render()).toContain("junction_pending 1");
    depth = 5;
    expect(await r.render()).toContain("junction_pending 5");
  });
});

describe("metricsResponse", () => {
  test("is 404 without a configured token, 401 with a wrong one, the text with the right one", async () => {
    const r = new MetricsRegistry();
    r.counter("junction_a_total", "A.").inc();
    expect((await metricsResponse(r, undefined, "Bearer x")).status).toBe(404);
    expect((await metricsResponse(r, "s3cret-token", "Bearer wrong")).status).toBe(401);
    expect((await metricsResponse(r, "s3cret-token", null)).status).toBe(401);
    const ok = await metricsResponse(r, "s3cret-token", "Bearer s3cret-token");
    expect(ok.status).toBe(200);
    expect(ok.headers.get("content-type")).toContain("version=0.0.4");
    expect(await ok.text()).toContain("junction_a_total 1");
  });
});
