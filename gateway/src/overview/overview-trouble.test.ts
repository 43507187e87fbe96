import { describe, expect, test } from "bun:test";
import { RunStatus } from "@junction/contracts/scripts/v1/scripts_service_pb";
import { DeliveryStatus } from "@junction/contracts/webhook/v1/webhook_service_pb";
import type { GatewayClients } from "../clients.ts";
import { overviewTrouble } from "./overview-trouble.ts";

const FROM = 1_000_000;

/** Clients answering the list calls the trouble lists make, as the services' stores would. */
function clients(scriptsDown = false): GatewayClients {
  return {
    connection: {
      listConnections: async () => ({
        connections: [
          { providerConfigKey: "cal", connectionId: "a", errors: [{ atMs: 5n, message: "refresh refused" }] },
          { providerConfigKey: "cal", connectionId: "ok", errors: [] },
        ],
      }),
    },
    webhook: {
      listMessages: async (req: { status: DeliveryStatus }) => ({
        messages:
          req.status === DeliveryStatus.EXHAUSTED
            ? [
                { providerConfigKey: "cal", connectionId: "a", createdAtMs: BigInt(FROM + 10), lastError: "HTTP 500" },
                { providerConfigKey: "mail", connectionId: "", createdAtMs: BigInt(FROM + 1), lastError: "HTTP 502" },
                // Before the period: not counted.
                { providerConfigKey: "mail", connectionId: "b", createdAtMs: BigInt(FROM - 1), lastError: "old" },
              ]
            : [],
      }),
    },
    scripts: {
      listRuns: async (req: { status: RunStatus }) => {
        if (scriptsDown) throw new Error("unavailable");
        return {
          runs:
            req.status === RunStatus.TIMED_OUT
              ? [
                  {
                    providerConfigKey: "mail",
                    connectionId: "b",
                    startedAtMs: BigInt(FROM + 2),
                    error: { message: "deadline" },
                  },
                ]
              : [],
        };
      },
    },
    channel: {
      listChannels: async () => ({
        channels: [{ providerConfigKey: "cal", connectionId: "a", expirationMs: BigInt(FROM + 3) }],
      }),
    },
  } as unknown as GatewayClients;
}

describe("the trouble lists", () => {
  test("each connection's problems from each store, in the period; integrations summed; the worst first", async () => {
    const t = await overviewTrouble(clients(), FROM);
    expect(t.unavailable).toEqual([]);
    expect(t.connections).toEqual([
      {
        provider_config_key: "cal",
        connection_id: "a",
        refresh_failures: 1,
        failing_deliveries: 1,
        failed_runs: 0,
        failing_channels: 1,
        last_error: "HTTP 500",
      },
      {
        provider_config_key: "mail",
        connection_id: "b",
        refresh_failures: 0,
        failing_deliveries: 0,
        failed_runs: 1,
        failing_channels: 0,
        last_error: "deadline",
      },
    ]);
    // The unmatched notification's failing delivery (no connection) counts for its integration only.
    expect(t.integrations).toEqual([
      {
        provider_config_key: "cal",
        connections: 1,
        refresh_failures: 1,
        failing_deliveries: 1,
        failed_runs: 0,
        failing_channels: 1,
      },
      {
        provider_config_key: "mail",
        connections: 1,
        refresh_failures: 0,
        failing_deliveries: 1,
        failed_runs: 1,
        failing_channels: 0,
      },
    ]);
  });

  test("a service that does not answer is named, and the others' lists stand", async () => {
    const t = await overviewTrouble(clients(true), FROM);
    expect(t.unavailable).toEqual(["scripts"]);
    expect(t.connections.map((c) => c.connection_id)).toEqual(["a"]);
  });
});
