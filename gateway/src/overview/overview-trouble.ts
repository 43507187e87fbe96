import { ChannelState } from "@junction/contracts/channel/v1/channel_service_pb";
import { RunStatus } from "@junction/contracts/scripts/v1/scripts_service_pb";
import { DeliveryStatus } from "@junction/contracts/webhook/v1/webhook_service_pb";
import type { GatewayClients } from "../clients.ts";

/** How many problems of each kind. */
export interface TroubleCounts {
  refresh_failures: number;
  failing_deliveries: number;
  failed_runs: number;
  failing_channels: number;
}

/** What is wrong with one connection (or an integration's notifications matched to none: connection_id ""). */
export interface ConnectionTrouble extends TroubleCounts {
  provider_config_key: string;
  connection_id: string;
  /** The latest problem's words (a refresh error's message, a delivery's last error, a run's error). */
  last_error: string;
}

export interface IntegrationTrouble extends TroubleCounts {
  provider_config_key: string;
  connections: number;
}

export interface OverviewTrouble {
  connections: ConnectionTrouble[];
  integrations: IntegrationTrouble[];
  /** The services that did not answer (their part of the lists is missing). */
  unavailable: string[];
}

/** How much of each store is read per answer: the most recent problems, not all of history. */
export const TROUBLE_SCAN = { connections: 1000, messages: 500, runs: 500, listed: 50 } as const;
const FAILED_RUNS = [RunStatus.FAILED, RunStatus.TIMED_OUT, RunStatus.MEMORY_EXCEEDED, RunStatus.CRASHED];
type Counted = keyof TroubleCounts;

/**
 * The connections and integrations in trouble since `fromMs`, from the stores that know them: refresh
 * errors recorded on connections (whenever recorded: they stand until the connection is fixed), webhook
 * messages failing or exhausted, failed runs, channels that expired without renewal.
 */
export async function overviewTrouble(clients: GatewayClients, fromMs: number): Promise<OverviewTrouble> {
  const byConnection = new Map<string, ConnectionTrouble & { at: number }>();
  const note = (key: string, connectionId: string, what: Counted, at: number, error: string) => {
    const k = `${key}\t${connectionId}`;
    const t = byConnection.get(k) ?? {
      provider_config_key: key,
      connection_id: connectionId,
      refresh_failures: 0,
      failing_deliveries: 0,
      failed_runs: 0,
      failing_channels: 0,
      last_error: "",
      at: -1,
    };
    t[what]++;
    if (at >= t.at && error !== "") {
      t.at = at;
      t.last_error = error.slice(0, 300);
    }
    byConnection.set(k, t);
  };
  const unavailable: string[] = [];
  const guarded = async (service: string, read: () => Promise<void>) => {
    try {
      await read();
    } catch {
      unavailable.push(service);
    }
  };
  await Promise.all([
    guarded("connection", async () => {
      const { connections } = await clients.connection.listConnections({ limit: TROUBLE_SCAN.connections });
      for (const c of connections) {
        for (const e of c.errors)
          note(c.providerConfigKey, c.connectionId, "refresh_failures", Number(e.atMs), e.message);
      }
    }),
    guarded("webhook", async () => {
      for (const status of [DeliveryStatus.FAILED, DeliveryStatus.EXHAUSTED]) {
        const { messages } = await clients.webhook.listMessages({ status, limit: TROUBLE_SCAN.messages });
        for (const m of messages) {
          const at = Number(m.createdAtMs);
          if (at >= fromMs) note(m.providerConfigKey, m.connectionId, "failing_deliveries", at, m.lastError);
        }
      }
    }),
    guarded("scripts", async () => {
      for (const status of FAILED_RUNS) {
        const { runs } = await clients.scripts.listRuns({ status, limit: TROUBLE_SCAN.runs });
        for (const r of runs) {
          const at = Number(r.startedAtMs);
          if (at >= fromMs) note(r.providerConfigKey, r.connectionId, "failed_runs", at, r.error?.message ?? "");
        }
      }
    }),
    guarded("channel", async () => {
      const { channels } = await clients.channel.listChannels({ state: ChannelState.EXPIRED });
      for (const c of channels) {
        const at = Number(c.expirationMs);
        if (at >= fromMs)
          note(c.providerConfigKey, c.connectionId, "failing_channels", at, "channel expired without renewal");
      }
    }),
  ]);
  return summarise([...byConnection.values()], unavailable.sort());
}

const weight = (t: Record<Counted, number>) =>
  t.refresh_failures + t.failing_deliveries + t.failed_runs + t.failing_channels;

function summarise(all: (ConnectionTrouble & { at: number })[], unavailable: string[]): OverviewTrouble {
  const integrations = new Map<string, IntegrationTrouble>();
  for (const t of all) {
    const i = integrations.get(t.provider_config_key) ?? {
      provider_config_key: t.provider_config_key,
      connections: 0,
      refresh_failures: 0,
      failing_deliveries: 0,
      failed_runs: 0,
      failing_channels: 0,
    };
    if (t.connection_id !== "") i.connections++;
    i.refresh_failures += t.refresh_failures;
    i.failing_deliveries += t.failing_deliveries;
    i.failed_runs += t.failed_runs;
    i.failing_channels += t.failing_channels;
    integrations.set(t.provider_config_key, i);
  }
  const connections = all
    .filter((t) => t.connection_id !== "")
    .sort((a, b) => weight(b) - weight(a) || b.at - a.at)
    .slice(0, TROUBLE_SCAN.listed)
    .map(({ at: _at, ...t }) => t);
  const ranked = [...integrations.values()].sort((a, b) => weight(b) - weight(a)).slice(0, TROUBLE_SCAN.listed);
  return { connections, integrations: ranked, unavailable };
}
