import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { portVariable, urlVariable } from "../wiring/addresses.ts";
import { SERVICE_TABLE } from "../wiring/service-table.ts";
import { ENV_EXAMPLE, parseEnvFile } from "./env-file.ts";
import { findNatsServer, planTopology } from "./topology-plan.ts";

describe("the plan of junction up", () => {
  test("starts nats-server, the sandbox, every service of the table in order, then the gateway", () => {
    expect(findNatsServer()).not.toBeNull();
    const plan = planTopology({}, "/tmp/junction-data");
    expect(plan.processes.map((p) => p.name)).toEqual([
      "nats",
      "sandbox",
      ...SERVICE_TABLE.map((s) => s.name),
      "gateway",
    ]);
    expect(plan.processes[0]?.command.slice(1)).toEqual([
      "-js",
      "-sd",
      "/tmp/junction-data/nats",
      "-a",
      "127.0.0.1",
      "-p",
      "4222",
    ]);
    for (const spec of SERVICE_TABLE) {
      expect(plan.env[portVariable(spec.name)]).toBe(String(spec.defaultPort));
      expect(plan.env[urlVariable(spec.name)]).toBe(`http://127.0.0.1:${spec.defaultPort}`);
    }
    expect(plan.env.JUNCTION_TEST_CREDENTIALS_FILE).toBe("/tmp/junction-data/sandbox-credentials.json");
    expect(plan.env.JUNCTION_BASE_URL).toBe("http://localhost:3003");
    expect(plan.gatewayUrl).toBe("http://127.0.0.1:3003");
  });

  test("follows the ports of the environment, and leaves the sandbox out when told to", () => {
    const plan = planTopology(
      {
        PORT: "5000",
        JUNCTION_NATS_URL: "nats://127.0.0.1:5222",
        JUNCTION_PROXY_PORT: "5102",
        JUNCTION_SANDBOX_UPSTREAM: "false",
      },
      "/data",
    );
    expect(plan.processes.map((p) => p.name)).not.toContain("sandbox");
    expect(plan.processes[0]?.command.at(-1)).toBe("5222");
    expect(plan.env.JUNCTION_PROXY_URL).toBe("http://127.0.0.1:5102");
    expect(plan.env.JUNCTION_TEST_CREDENTIALS_FILE).toBeUndefined();
    expect(plan.gatewayUrl).toBe("http://127.0.0.1:5000");
  });

  test("a base URL on this machine must name the gateway's port; one elsewhere may use any", () => {
    // The example env file sets PORT, not the base URL: PORT=3033 in the shell moves both.
    const example = parseEnvFile(readFileSync(ENV_EXAMPLE, "utf8"), ENV_EXAMPLE);
    expect(example.JUNCTION_BASE_URL).toBeUndefined();
    expect(planTopology({ ...example, PORT: "3033" }, "/data").env.JUNCTION_BASE_URL).toBe("http://localhost:3033");
    // A data dir whose env file was written by an older example still names 3003: refused, naming both.
    expect(() =>
      planTopology({ ...example, JUNCTION_BASE_URL: "http://localhost:3003", PORT: "3033" }, "/data"),
    ).toThrow(
      "JUNCTION_BASE_URL is http://localhost:3003, but the gateway listens on port 3033 (PORT): webhook URLs, " +
        "connect links and the OAuth redirect would point at port 3003. Set JUNCTION_BASE_URL=http://localhost:3033",
    );
    expect(() => planTopology({ JUNCTION_BASE_URL: "http://127.0.0.1", PORT: "3033" }, "/data")).toThrow(
      "would point at port 80",
    );
    expect(() => planTopology({ JUNCTION_BASE_URL: "not a url" }, "/data")).toThrow("must be a URL");
    const proxied = planTopology({ JUNCTION_BASE_URL: "https://junction.example.com", PORT: "3033" }, "/data");
    expect(proxied.env.JUNCTION_BASE_URL).toBe("https://junction.example.com");
  });

  test("names the variable of a bad port", () => {
    expect(() => planTopology({ JUNCTION_WEBHOOK_PORT: "high" }, "/data")).toThrow(
      'JUNCTION_WEBHOOK_PORT must be a port number (1-65535), got "high"',
    );
  });
});

describe("the env file", () => {
  test("the example sets every service's port, the encryption key left for junction up to fill in", () => {
    const values = parseEnvFile(readFileSync(ENV_EXAMPLE, "utf8"), ENV_EXAMPLE);
    for (const spec of SERVICE_TABLE) expect(values[portVariable(spec.name)]).toBe(String(spec.defaultPort));
    expect(values.JUNCTION_ENCRYPTION_KEY).toBe("");
    expect(values.JUNCTION_SANDBOX_UPSTREAM).toBe("true");
  });

  test("is read as NAME=value lines, with comments, quotes and export", () => {
    expect(parseEnvFile("# a comment\nA=1\nexport B=\"two words\"\nC=x # note\n\nD='#kept'\n", "f")).toEqual({
      A: "1",
      B: "two words",
      C: "x",
      D: "#kept",
    });
    expect(() => parseEnvFile("A=1\nnot a line\n", "distributed.env")).toThrow(
      'distributed.env:2: expected NAME=value, got "not a line"',
    );
  });
});
