import { describe, expect, test } from "bun:test";
import { createRouterTransport } from "@connectrpc/connect";
import { ConnectionService } from "@junction/contracts/connection/v1/connection_service_pb";
import { checkReadiness, createLogger, loadCommonConfig, systemClock } from "@junction/platform";
import { h2cTransport } from "@junction/platform/h2c";
import { freePort } from "@junction/platform/testing/free-port";
import { InMemoryWiring } from "./in-memory-wiring.ts";
import { serviceCheck } from "./readiness-checks.ts";

describe("serviceCheck", () => {
  test("a running service answers the probe, whatever it serves", async () => {
    const transport = createRouterTransport((r) => r.service(ConnectionService, {}));
    expect(await checkReadiness([serviceCheck("connection", transport)])).toMatchObject({ ready: true });
  });

  test("a process that is not listening, and a service no wiring runs, are missing, each saying why", async () => {
    const down = h2cTransport(`http://127.0.0.1:${await freePort()}`);
    const wiring = new InMemoryWiring({
      common: loadCommonConfig({}),
      clock: systemClock,
      logger: createLogger({ sink: () => {} }),
      services: [],
    });
    const report = await checkReadiness([
      serviceCheck("proxy", down),
      serviceCheck("channel", wiring.transport("channel")),
    ]);
    expect(report.ready).toBe(false);
    expect(report.missing).toEqual([
      { name: "service:proxy", reason: "the proxy service does not answer (Unavailable)" },
      { name: "service:channel", reason: "the channel service does not answer (Unimplemented)" },
    ]);
  });
});
