import { describe, expect, test } from "bun:test";
import { loadProcessSettings } from "./process-settings.ts";

describe("the process's settings", () => {
  test("default to the loopback address, no sandbox upstream, a free port for it", () => {
    expect(loadProcessSettings({})).toEqual({ host: "127.0.0.1", sandboxUpstream: false, sandboxUpstreamPort: 0 });
  });

  test("the container image opens every address, and only the image", async () => {
    const dockerfile = await Bun.file(new URL("../../Dockerfile", import.meta.url)).text();
    expect(dockerfile).toMatch(/^ENV JUNCTION_HOST=0\.0\.0\.0$/m);
  });

  test("a secret key that is too short names the variable and the minimum length, never the key", () => {
    const run = () => loadProcessSettings({ JUNCTION_SECRET_KEY: "jct_sk_short" });
    expect(run).toThrow("JUNCTION_SECRET_KEY: must be at least 16 characters long");
    expect(run).not.toThrow("jct_sk_short");
    expect(loadProcessSettings({ JUNCTION_SECRET_KEY: "jct_sk_0123456789" }).secretKey).toBe("jct_sk_0123456789");
  });

  test("are read from JUNCTION_HOST, JUNCTION_SANDBOX_UPSTREAM and JUNCTION_SANDBOX_UPSTREAM_PORT", () => {
    const env = {
      JUNCTION_HOST: "0.0.0.0",
      JUNCTION_SANDBOX_UPSTREAM: "yes",
      JUNCTION_SANDBOX_UPSTREAM_PORT: "4100",
    };
    expect(loadProcessSettings(env)).toEqual({ host: "0.0.0.0", sandboxUpstream: true, sandboxUpstreamPort: 4100 });
  });

  test("a bad value stops start-up, naming the variable (it used to count as off, or as NaN)", () => {
    expect(() => loadProcessSettings({ JUNCTION_SANDBOX_UPSTREAM: "sure" })).toThrow("JUNCTION_SANDBOX_UPSTREAM");
    expect(() => loadProcessSettings({ JUNCTION_SANDBOX_UPSTREAM_PORT: "high" })).toThrow(
      "JUNCTION_SANDBOX_UPSTREAM_PORT",
    );
  });
});
