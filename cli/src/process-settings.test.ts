import { describe, expect, test } from "bun:test";
import { loadProcessSettings } from "./process-settings.ts";

describe("the process's settings", () => {
  test("default to every address, no sandbox upstream, a free port for it", () => {
    expect(loadProcessSettings({})).toEqual({ host: "0.0.0.0", sandboxUpstream: false, sandboxUpstreamPort: 0 });
  });

  test("are read from JUNCTION_HOST, JUNCTION_SANDBOX_UPSTREAM and JUNCTION_SANDBOX_UPSTREAM_PORT", () => {
    const env = {
      JUNCTION_HOST: "127.0.0.1",
      JUNCTION_SANDBOX_UPSTREAM: "yes",
      JUNCTION_SANDBOX_UPSTREAM_PORT: "4100",
    };
    expect(loadProcessSettings(env)).toEqual({ host: "127.0.0.1", sandboxUpstream: true, sandboxUpstreamPort: 4100 });
  });

  test("a bad value stops start-up, naming the variable (it used to count as off, or as NaN)", () => {
    expect(() => loadProcessSettings({ JUNCTION_SANDBOX_UPSTREAM: "sure" })).toThrow("JUNCTION_SANDBOX_UPSTREAM");
    expect(() => loadProcessSettings({ JUNCTION_SANDBOX_UPSTREAM_PORT: "high" })).toThrow(
      "JUNCTION_SANDBOX_UPSTREAM_PORT",
    );
  });
});
