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

type Tallied = ConnectionTrouble & { at: number };
/** Counts one problem of a connection, keeping the latest problem's words. */
type Note = (key: string, connectionId: string, what: Counted, at: number, error: string) => void;

function tally(byConnection: Map<string, Tallied>): Note {
  return (key, connectionId, what, at, error) => {
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
}

/** Refresh errors stand until the connection is fixed, so they count whenever recorded. */
async function noteRefreshFailures(clients: GatewayClients, note: Note): Promise<void> {
  const { connections } = await clients.connection.listConnections({ limit: TROUBLE_SCAN.connections });
  for (const c of connections) {
    for (const e of c.errors) note(c.providerConfigKey, c.connectionId, "refresh_failures", Number(e.atMs), e.message);
  }
}

async function noteFailingDeliveries(clients: GatewayClients, fromMs: number, note: Note): Promise<void> {
  for (const status of [DeliveryStatus.FAILED, DeliveryStatus.EXHAUSTED]) {
    const { messages } = await clients.webhook.listMessages({ status, limit: TROUBLE_SCAN.messages });
    for (const m of messages) {
      const at = Number(m.createdAtMs);
      if (at >= fromMs) note(m.providerConfigKey, m.connectionId, "failing_deliveries", at, m.lastError);
    }
  }
}

async function noteFailedRuns(clients: GatewayClients, fromMs: number, note: Note): Promise<void> {
  for (const status of FAILED_RUNS) {
    const { runs } = await clients.scripts.listRuns({ status, limit: TROUBLE_SCAN.runs });
    for (const r of runs) {
      const at = Number(r.startedAtMs);
      if (at >= fromMs) note(r.providerConfigKey, r.connectionId, "failed_runs", at, r.error?.message ?? "");
    }
  }
}

async function noteExpiredChannels(clients: GatewayClients, fromMs: number, note: Note): Promise<void> {
  const { channels } = await clients.channel.listChannels({ state: ChannelState.EXPIRED });
  for (const c of channels) {
    const at = Number(c.expirationMs);
    if (at >= fromMs)
      note(c.providerConfigKey, c.connectionId, "failing_channels", at, "channel expired without renewal");
  }
}

/**
 * The connections and integrations in trouble since `fromMs`, from the stores that know them: refresh
 * errors recorded on connections (whenever recorded: they stand until the connection is fixed), webhook
 * messages failing or exhausted, failed runs, channels that expired without renewal.
 */
export async function overviewTrouble(clients: GatewayClients, fromMs: number): Promise<OverviewTrouble> {
  const byConnection = new Map<string, Tallied>();
  const note = tally(byConnection);
  const readers: [service: string, read: () => Promise<void>][] = [
    ["connection", () => noteRefreshFailures(clients, note)],
    ["webhook", () => noteFailingDeliveries(clients, fromMs, note)],
    ["scripts", () => noteFailedRuns(clients, fromMs, note)],
    ["channel", () => noteExpiredChannels(clients, fromMs, note)],
  ];
  // A service that does not answer leaves its part out and is named, rather than failing the overview.
  const unavailable: string[] = [];
  await Promise.all(readers.map(([service, read]) => read().catch(() => void unavailable.push(service))));
  return summarise([...byConnection.values()], unavailable.sort());
}

const weight = (t: Record<Counted, number>) =>
  t.refresh_failures + t.failing_deliveries + t.failed_runs + t.failing_channels;

function summarise(all: Tallied[], unavailable: string[]): OverviewTrouble {
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
