import { describe, expect, test } from "bun:test";
import { createRouterTransport, type Transport } from "@connectrpc/connect";
import { ConnectionService } from "@junction/contracts/connection/v1/connection_service_pb";
import { createLogger, loadCommonConfig, MetricsRegistry, systemClock } from "@junction/platform";
import type { ServiceKey, ServiceSpec } from "./service-spec.ts";
import { buildService, lateClients, lateTransport, type ProcessWiring } from "./wire.ts";

/** A connection service answering only getEnvironment, in memory. */
const connectionRouter = () =>
  createRouterTransport((r) =>
    r.service(ConnectionService, { getEnvironment: () => ({ environment: { id: "env_wired" } }) }),
  );

function processWiring(runs: (name: ServiceKey) => boolean): ProcessWiring {
  const transport = connectionRouter();
  return {
    env: {},
    common: loadCommonConfig({}),
    clock: systemClock,
    logger: createLogger({ sink: () => {} }),
    embedded: true,
    metrics: new MetricsRegistry(),
    clients: lateClients(() => transport),
    runs,
    baseUrl: () => "http://junction.test",
  };
}

/** A service that asks, while it is built, for what `ask` says, and reports what it got. */
function probeSpec(needs: ServiceSpec["needs"], ask: (ctx: Parameters<ServiceSpec["build"]>[0]) => Promise<unknown>) {
  const got: unknown[] = [];
  const spec: ServiceSpec = {
    name: "proxy",
    defaultPort: 0,
    needs,
    config: () => undefined,
    async build(ctx) {
      got.push(await ask(ctx));
      return { routes: () => {} };
    },
  };
  return { spec, got };
}

describe("building a service", () => {
  test("gives the clients it declares and refuses one it does not", async () => {
    const declared = probeSpec({ clients: ["connection"] }, async (ctx) => ctx.environment());
    await buildService(
      declared.spec,
      undefined,
      processWiring(() => true),
      {},
    );
    expect(declared.got).toEqual(["env_wired"]);

    const undeclared = probeSpec({ clients: [] }, async (ctx) => ctx.client("connection"));
    await expect(
      buildService(
        undeclared.spec,
        undefined,
        processWiring(() => true),
        {},
      ),
    ).rejects.toThrow("the proxy service does not declare connection");
  });

  test("gives an optional client only when the topology runs that service", async () => {
    const probe = () =>
      probeSpec({ clients: [], optionalClients: ["scripts"] }, async (ctx) => !!ctx.optionalClient("scripts"));
    const running = probe();
    await buildService(
      running.spec,
      undefined,
      processWiring(() => true),
      {},
    );
    const absent = probe();
    await buildService(
      absent.spec,
      undefined,
      processWiring((name) => name !== "scripts"),
      {},
    );
    expect([running.got, absent.got]).toEqual([[true], [false]]);
  });

  test("refuses the bus, the encryptor and the base URL to a service that does not declare them", async () => {
    const bus = probeSpec({ clients: [] }, async (ctx) => ctx.bus);
    await expect(
      buildService(
        bus.spec,
        undefined,
        processWiring(() => true),
        {},
      ),
    ).rejects.toThrow("the proxy service does not declare the bus");
    const encryptor = probeSpec({ clients: [] }, async (ctx) => ctx.encryptor);
    await expect(
      buildService(
        encryptor.spec,
        undefined,
        processWiring(() => true),
        {},
      ),
    ).rejects.toThrow("the proxy service does not declare the encryptor");
  });
});

describe("a late transport", () => {
  test("is made on its first call, once", async () => {
    let made = 0;
    const transport = lateTransport((): Transport => {
      made++;
      return connectionRouter();
    });
    const clients = lateClients(() => transport);
    expect(made).toBe(0);
    await clients.connection.getEnvironment({});
    await clients.connection.getEnvironment({});
    expect(made).toBe(1);
  });
});
