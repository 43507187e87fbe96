import { describe, expect, test } from "bun:test";
import { Code, ConnectError } from "@connectrpc/connect";
import { ConnectionService } from "@junction/contracts/connection/v1/connection_service_pb";
import { createLogger, loadCommonConfig, systemClock } from "@junction/platform";
import { InMemoryWiring, type InMemoryWiringOptions } from "./in-memory-wiring.ts";
import type { ServiceSpec } from "./service-spec.ts";

const options = (services: InMemoryWiringOptions["services"]) => ({
  common: loadCommonConfig({}),
  clock: systemClock,
  logger: createLogger({ sink: () => {} }),
  services,
});

/** A connection service answering getEnvironment with `id`, that reports whether it got a scripts client. */
function connectionStub(id: string, sawScripts: boolean[] = []): ServiceSpec {
  return {
    name: "connection",
    defaultPort: 0,
    needs: { clients: [], optionalClients: ["scripts"] },
    config: () => undefined,
    async build(ctx) {
      sawScripts.push(ctx.optionalClient("scripts") !== undefined);
      return {
        routes: (r) => r.service(ConnectionService, { getEnvironment: () => ({ environment: { id } }) }),
      };
    },
  };
}

const codeOf = (err: unknown) => ConnectError.from(err).code;

describe("an in-memory wiring", () => {
  test("serves what it built; a service no wiring runs answers Unimplemented", async () => {
    const wiring = new InMemoryWiring(options(["connection"]));
    await wiring.build(connectionStub("env_a"));
    expect((await wiring.clients.connection.getEnvironment({})).environment?.id).toBe("env_a");
    expect(codeOf(await wiring.clients.proxy.resolveUpstream({}).catch((e: unknown) => e))).toBe(Code.Unimplemented);
  });

  test("reaches a peer wiring's service, and gives optional clients only of services it or its peers run", async () => {
    const seen: boolean[] = [];
    const alone = new InMemoryWiring(options(["connection"]));
    await alone.build(connectionStub("env_b", seen));
    const withScripts = new InMemoryWiring(options(["connection", "scripts"]));
    await withScripts.build(connectionStub("env_c", seen));
    const other = new InMemoryWiring({ ...options(["scripts"]), peers: { connection: alone.transport("connection") } });
    expect((await other.clients.connection.getEnvironment({})).environment?.id).toBe("env_b");
    expect(seen).toEqual([false, true]);
  });

  test("runs a service's own interceptors before its error boundary", async () => {
    const wiring = new InMemoryWiring(options(["connection"]));
    await wiring.build(connectionStub("env_d"), {
      interceptors: [
        () => async () => {
          throw new ConnectError("down", Code.Unavailable);
        },
      ],
    });
    expect(codeOf(await wiring.clients.connection.getEnvironment({}).catch((e: unknown) => e))).toBe(Code.Unavailable);
  });
});
