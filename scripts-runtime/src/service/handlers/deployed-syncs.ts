import { notFound } from "@junction/platform";
import type { ScriptVersionRecord } from "../../store/records.ts";
import type { ScriptsServiceContext } from "../context.ts";
import { errors } from "../errors.ts";
import { callService } from "./call-service.ts";

/** Connections read per page when a request concerns every connection of an integration. */
const CONNECTION_PAGE = 1000;

/**
 * The deployed syncs of an integration that a request names (every one when it names none), each
 * name checked before anything is done: NotFound `unknown_sync` for a name that is not a sync (a
 * lifecycle script's name says so), or when the integration has no sync at all.
 */
export async function deployedSyncs(
  ctx: ScriptsServiceContext,
  environmentId: string,
  providerConfigKey: string,
  requested: string[],
): Promise<ScriptVersionRecord[]> {
  const latest = await ctx.scripts.listLatest(environmentId, providerConfigKey);
  const deployed = new Map(latest.filter((v) => v.declaration.kind === "sync").map((v) => [v.name, v]));
  const names = requested.length > 0 ? [...new Set(requested)] : [...deployed.keys()];
  if (names.length === 0) throw notFound("unknown_sync", `Integration "${providerConfigKey}" has no deployed sync.`);
  const unknown = names.filter((n) => !deployed.has(n));
  if (unknown.length > 0) {
    const lifecycle = unknown.filter((n) => latest.some((v) => v.name === n));
    throw errors.unknownSync(
      providerConfigKey,
      unknown,
      lifecycle.length > 0 ? `${lifecycle.map((n) => `"${n}"`).join(", ")}: a lifecycle script, not a sync.` : "",
    );
  }
  return names.map((n) => deployed.get(n) as ScriptVersionRecord);
}

/** The connection named (it must exist: NotFound `unknown_connection`), or every one of the integration. */
export async function connectionsOf(
  ctx: ScriptsServiceContext,
  providerConfigKey: string,
  connectionId: string,
): Promise<string[]> {
  const connection = ctx.clients().connection;
  if (connectionId) {
    await callService(connection.getConnection({ providerConfigKey, connectionId }));
    return [connectionId];
  }
  const ids: string[] = [];
  for (let page = 0; ; page++) {
    const { connections } = await callService(
      connection.listConnections({ providerConfigKey, limit: CONNECTION_PAGE, page }),
    );
    ids.push(...connections.map((c) => c.connectionId));
    if (connections.length < CONNECTION_PAGE) return ids;
  }
}
