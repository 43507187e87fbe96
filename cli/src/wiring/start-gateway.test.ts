import { describe, expect, test } from "bun:test";
import type { GatewayClients } from "@junction/gateway";
import { NO_OVERVIEW } from "@junction/gateway/overview/overview-store";
import { createLogger, MetricsRegistry, systemClock } from "@junction/platform";
import { OperationRecorder } from "@junction/platform/operations/operation-recorder";
import { loadGatewaySettings } from "./gateway-settings.ts";
import { type GatewayPeers, type GatewayTopology, startGateway } from "./start-gateway.ts";

/** What happened, in order: the peers' steps and the connection service's calls. */
type Steps = string[];

/** A connection service with no key yet: the bootstrap generates one. */
function connectionClient(steps: Steps, baseUrl: string) {
  return {
    getEnvironment: async () => {
      steps.push("getEnvironment");
      return { environment: { id: "env_1" } };
    },
    listSecretKeys: async () => ({ keys: [] }),
    createSecretKey: async () => {
      // Not served yet while the key is made: a healthy gateway must accept its key.
      const health = await fetch(`http://127.0.0.1:${new URL(baseUrl).port}/health`).catch(() => undefined);
      steps.push(`createSecretKey (health ${health?.status ?? "refused"})`);
      return { plaintext: "jct_sk_generated_0123456789" };
    },
  };
}

function peers(steps: Steps, whileBuilding?: (baseUrl: string) => Promise<void>) {
  return async (baseUrl: string): Promise<GatewayPeers> => {
    steps.push(`peers ${baseUrl}`);
    await whileBuilding?.(baseUrl);
    return {
      clients: { connection: connectionClient(steps, baseUrl) } as unknown as GatewayClients,
      readiness: [],
      overview: {
        store: NO_OVERVIEW,
        sampler: { start: async () => void steps.push("sampler start") },
      },
      start: async () => void steps.push("peers start"),
      stop: async () => void steps.push("peers stop"),
    };
  };
}

function topology(steps: Steps, over: Partial<GatewayTopology>): GatewayTopology {
  return {
    settings: loadGatewaySettings({}),
    logger: createLogger({ level: "error" }),
    metrics: new MetricsRegistry(),
    operations: new OperationRecorder({ clock: systemClock, enabled: false }),
    hostname: "127.0.0.1",
    port: 0,
    bindFirst: true,
    baseUrl: undefined,
    peers: peers(steps),
    ...over,
  };
}

describe("the gateway's start, the same for both topologies", () => {
  test("bound first, it answers 503 while its peers are built, then serves once the key exists", async () => {
    const steps: Steps = [];
    let whileBuilding: Response | undefined;
    const started = await startGateway(
      topology(steps, {
        peers: peers(steps, async (baseUrl) => {
          whileBuilding = await fetch(`http://127.0.0.1:${new URL(baseUrl).port}/health`);
        }),
        onGeneratedKey: (key) => void steps.push(`told ${key}`),
      }),
    );
    // The base URL names the bound port when none is configured.
    const port = started.server.port;
    expect(steps[0]).toBe(`peers http://localhost:${port}`);
    expect(started.baseUrl).toBe(`http://localhost:${port}`);
    await started.stop();
    expect(whileBuilding?.status).toBe(503);
    expect(steps).toEqual([
      `peers http://localhost:${port}`,
      "getEnvironment",
      "createSecretKey (health 503)",
      "told jct_sk_generated_0123456789",
      "sampler start",
      "peers start",
      "peers stop",
    ]);
    expect(started.generatedSecretKey).toBe("jct_sk_generated_0123456789");
  });

  test("bound late, a taken port is refused before any peer is built or key generated", async () => {
    const taken = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    const steps: Steps = [];
    try {
      const start = startGateway(
        topology(steps, { bindFirst: false, port: taken.port, baseUrl: "http://127.0.0.1:1/" }),
      );
      await expect(start).rejects.toThrow(`Failed to start server. Is port ${taken.port} in use?`);
      expect(steps).toEqual([]);
    } finally {
      taken.stop(true);
    }
  });

  test("bound late, it serves only after the key bootstrap, at the configured base URL (its trailing slash cut)", async () => {
    const steps: Steps = [];
    const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    const port = probe.port;
    probe.stop(true);
    const started = await startGateway(
      topology(steps, { bindFirst: false, port, baseUrl: `http://127.0.0.1:${port}/`, keyWaitMs: 1000 }),
    );
    try {
      expect(started.baseUrl).toBe(`http://127.0.0.1:${port}`);
      expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);
      expect(steps.slice(0, 3)).toEqual([
        `peers http://127.0.0.1:${port}`,
        "getEnvironment",
        "createSecretKey (health refused)",
      ]);
    } finally {
      await started.stop();
    }
  });

  test("a bad gateway setting stops the start when the settings are read, before anything is bound", () => {
    expect(() => loadGatewaySettings({ JUNCTION_WEBSOCKETS_PATH: "no-slash" })).toThrow("JUNCTION_WEBSOCKETS_PATH");
    expect(() => loadGatewaySettings({ PORT: "high" })).toThrow("PORT");
  });
});
