import { createHash } from "node:crypto";
import type { ServiceImpl } from "@connectrpc/connect";
import { RunStatus, type ScriptsService, SyncState } from "@junction/contracts/scripts/v1/scripts_service_pb";
import { parseFrequency } from "../../declaration/frequency.ts";
import type { ScriptRunRecord, ScriptVersionRecord } from "../../store/records.ts";
import type { ScriptsServiceContext } from "../context.ts";
import { errors } from "../errors.ts";
import { STATUSES } from "../mappers.ts";
import type { SyncRuns } from "../scheduler/sync-runs.ts";
import type { SyncScheduler } from "../scheduler/sync-scheduler.ts";
import type { ScheduleKey } from "../store/records.ts";
import { BASE_VARIANT } from "../host/sync-run-data.ts";
import { callService } from "./call-service.ts";
import { connectionsOf, deployedSyncs } from "./deployed-syncs.ts";

type Handlers = Pick<ServiceImpl<typeof ScriptsService>, "getSyncStatus" | "setSyncsPaused" | "setSyncFrequency">;

/** GetSyncStatus, SetSyncsPaused, SetSyncFrequency: Nango's sync status and control. */
export function syncControlHandlers(ctx: ScriptsServiceContext, syncs: SyncRuns, scheduler: SyncScheduler): Handlers {
  const required = (value: string, path: string) => {
    if (!value) throw errors.invalidField(path, "is required");
    return value;
  };
  /** Everything a request names, checked (integration, syncs, connection) before anything changes. */
  const resolve = async (req: { providerConfigKey: string; syncs: string[]; connectionId: string }) => {
    const env = await ctx.environment();
    const key = required(req.providerConfigKey, "provider_config_key");
    await callService(ctx.clients().connection.getIntegration({ uniqueKey: key }));
    const versions = await deployedSyncs(ctx, env, key, req.syncs);
    const connectionIds = await connectionsOf(ctx, key, req.connectionId);
    const keys = connectionIds.flatMap((connectionId) =>
      versions.map((v) => ({
        version: v,
        key: { environmentId: env, providerConfigKey: key, scriptName: v.name, connectionId },
      })),
    );
    return { env, key, keys };
  };

  return {
    async getSyncStatus(req) {
      const { keys } = await resolve(req);
      const statuses = [];
      for (const { key, version } of keys) statuses.push(await statusOf(ctx, syncs, key, version));
      return { syncs: statuses };
    },

    async setSyncsPaused(req) {
      const { key, keys } = await resolve(req);
      const changed = await ctx.store.setPaused(
        keys.map((k) => k.key),
        req.paused,
        ctx.clock.now(),
      );
      if (!req.paused && changed > 0) scheduler.poke();
      ctx.logger.info(req.paused ? "syncs paused" : "syncs started", {
        integration: key,
        connectionId: req.connectionId || null,
        syncs: [...new Set(keys.map((k) => k.version.name))],
        changed,
      });
      return { changed };
    },

    async setSyncFrequency(req) {
      const env = await ctx.environment();
      const key = required(req.providerConfigKey, "provider_config_key");
      const connectionId = required(req.connectionId, "connection_id");
      const name = required(req.syncName, "sync_name");
      const own = req.frequency === undefined ? null : parseFrequency(req.frequency);
      if (own && !own.ok) throw errors.invalidFrequency(own.reason);
      await callService(ctx.clients().connection.getIntegration({ uniqueKey: key }));
      const [version] = await deployedSyncs(ctx, env, key, [name]);
      await connectionsOf(ctx, key, connectionId);
      const d = (version as ScriptVersionRecord).declaration;
      if (d.kind !== "sync") throw errors.unknownSync(key, [name]);
      const frequency = own?.ok ? { text: own.frequency.text, ms: own.frequency.ms } : null;
      const scheduleKey = { environmentId: env, providerConfigKey: key, scriptName: name, connectionId };
      await ctx.store.setFrequency(scheduleKey, frequency, d.frequencyMs, ctx.clock.now());
      scheduler.poke();
      // As Nango answers: the interval it read from the new frequency, or the script's as written.
      const interval = own?.ok ? own.frequency.interval : d.frequency;
      ctx.logger.info("sync frequency set for a connection", {
        integration: key,
        script: name,
        connectionId,
        interval,
      });
      return { frequency: interval };
    },
  };
}

/** Where one sync stands for one connection, from its schedule row and its latest run. */
async function statusOf(ctx: ScriptsServiceContext, syncs: SyncRuns, key: ScheduleKey, version: ScriptVersionRecord) {
  const row = await ctx.store.getSchedule(key);
  const latest = await latestRun(ctx, key);
  const now = ctx.clock.now();
  const running = syncs.isRunningHere(key) || (row?.leaseHolder != null && (row.leaseUntil ?? 0) > now);
  const d = version.declaration;
  const paused = row ? row.nextDueAt === null : !(d.kind === "sync" && d.autoStart);
  const failed = latest !== null && latest.status !== "running" && latest.status !== "succeeded";
  const records = await syncRecords(ctx, key, d.kind === "sync" ? Object.keys(d.models ?? {}) : []);
  const state = running ? SyncState.RUNNING : paused ? SyncState.PAUSED : failed ? SyncState.ERROR : SyncState.SUCCESS;
  return {
    id: syncId(key),
    connectionId: key.connectionId,
    name: key.scriptName,
    state,
    finishedAtMs: BigInt(running ? 0 : (latest?.finishedAt ?? 0)),
    nextScheduledAtMs: BigInt(row?.nextDueAt ?? 0),
    frequency: row?.frequency?.text ?? (d.kind === "sync" ? d.frequency : ""),
    latestRunId: latest?.id ?? "",
    latestRunStatus: latest ? STATUSES[latest.status] : RunStatus.UNSPECIFIED,
    ...records,
  };
}

/** Nango's `recordCount` (per model of the sync; every model of the connection when it declares none) and `checkpoint`. */
async function syncRecords(ctx: ScriptsServiceContext, key: ScheduleKey, declared: string[]) {
  const scope = {
    environmentId: key.environmentId,
    providerConfigKey: key.providerConfigKey,
    connectionId: key.connectionId,
  };
  const recordCount: Record<string, bigint> = {};
  for (const m of await ctx.records.models(scope)) {
    if (m.variant !== BASE_VARIANT || (declared.length > 0 && !declared.includes(m.model))) continue;
    recordCount[m.model] = BigInt(m.count);
  }
  const checkpoint = await ctx.records.getCheckpoint({ ...scope, syncName: key.scriptName, variant: BASE_VARIANT });
  return { recordCount, ...(checkpoint ? { checkpoint } : {}) };
}

/** The latest run of a sync's exec for a connection (schedule or trigger; not its onWebhook runs). */
async function latestRun(ctx: ScriptsServiceContext, key: ScheduleKey): Promise<ScriptRunRecord | null> {
  const filter = {
    providerConfigKey: key.providerConfigKey,
    scriptName: key.scriptName,
    connectionId: key.connectionId,
  };
  const [scheduled, manual] = await Promise.all(
    (["schedule", "manual"] as const).map(
      async (trigger) => (await ctx.runs.list(key.environmentId, { ...filter, trigger, limit: 1 }))[0] ?? null,
    ),
  );
  if (!scheduled || !manual) return scheduled ?? manual ?? null;
  return scheduled.id > manual.id ? scheduled : manual;
}

/** A stable id per (sync, connection): Junction keeps no sync record of its own. */
function syncId(key: ScheduleKey): string {
  const digest = createHash("sha256")
    .update(JSON.stringify([key.environmentId, key.providerConfigKey, key.scriptName, key.connectionId]))
    .digest("hex");
  return `sync_${digest.slice(0, 26)}`;
}
