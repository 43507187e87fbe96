import {
  type DeployBundlesRequest,
  type PlannedScript,
  ScriptKind,
  type ScriptBundle,
} from "@junction/contracts/scripts/v1/scripts_service_pb";
import type { ScriptKind as KindName } from "../../declaration/script-declaration.ts";
import type { ScriptVersionRecord } from "../../store/records.ts";
import { EVENTS } from "../mappers.ts";

export const KINDS: Record<KindName, ScriptKind> = {
  sync: ScriptKind.SYNC,
  "on-event": ScriptKind.ON_EVENT,
  action: ScriptKind.ACTION,
};

/** What a Nango deploy does to the environment's scripts, as its confirmation lists it. */
export interface DeployPlan {
  added: PlannedScript[];
  updated: PlannedScript[];
  removed: PlannedScript[];
  /** The scripts the mode removes, as stored. */
  removing: ScriptVersionRecord[];
  removedModels: string[];
}

const keyOf = (providerConfigKey: string, name: string) => `${providerConfigKey}\u0000${name}`;

/**
 * Compares the bundles with what is deployed. `mode` is Nango's deployMode: "all" removes every
 * other script of the environment, "integration" those of the bundles' integrations, "single"
 * nothing. A removed model is one that a sync of the scope saved and no deployed sync declares.
 */
export function planDeploy(
  req: DeployBundlesRequest,
  existing: ScriptVersionRecord[],
  connections: (providerConfigKey: string) => number,
): DeployPlan {
  const deployed = new Map(existing.map((v) => [keyOf(v.providerConfigKey, v.name), v]));
  const incoming = new Set(req.bundles.map((b) => keyOf(b.providerConfigKey, b.name)));
  const integrations = new Set(req.bundles.map((b) => b.providerConfigKey));
  const inScope = (v: ScriptVersionRecord) =>
    req.mode === "all" || (req.mode === "integration" && integrations.has(v.providerConfigKey));
  const removing = existing.filter((v) => inScope(v) && !incoming.has(keyOf(v.providerConfigKey, v.name)));

  const plan: DeployPlan = { added: [], updated: [], removed: [], removing, removedModels: [] };
  for (const b of req.bundles) {
    const entry = planned(b, connections(b.providerConfigKey));
    (deployed.has(keyOf(b.providerConfigKey, b.name)) ? plan.updated : plan.added).push(entry);
  }
  for (const v of removing) {
    const d = v.declaration;
    plan.removed.push({
      $typeName: "junction.scripts.v1.PlannedScript",
      providerConfigKey: v.providerConfigKey,
      name: v.name,
      kind: KINDS[d.kind],
      connections: d.kind === "sync" ? connections(v.providerConfigKey) : 0,
      autoStart: d.kind === "sync" && d.autoStart,
      event: d.kind === "on-event" ? EVENTS[d.event] : 0,
    });
  }
  const kept = new Set(req.bundles.flatMap((b) => b.models.map((m) => keyOf(b.providerConfigKey, m))));
  const replaced = existing.filter((v) => inScope(v) || incoming.has(keyOf(v.providerConfigKey, v.name)));
  const lost = new Set<string>();
  for (const v of replaced) {
    if (v.declaration.kind !== "sync") continue;
    for (const model of Object.keys(v.declaration.models ?? {})) {
      if (!kept.has(keyOf(v.providerConfigKey, model))) lost.add(model);
    }
  }
  plan.removedModels = [...lost].sort();
  return plan;
}

function planned(b: ScriptBundle, connections: number): PlannedScript {
  return {
    $typeName: "junction.scripts.v1.PlannedScript",
    providerConfigKey: b.providerConfigKey,
    name: b.name,
    kind: b.kind,
    connections: b.kind === ScriptKind.SYNC ? connections : 0,
    autoStart: b.kind === ScriptKind.SYNC && b.autoStart !== false,
    event: 0,
  };
}
