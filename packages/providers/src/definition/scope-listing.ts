import type { GuidanceSensitivity } from "../adapter.ts";
import type { ScopeTemplate } from "./provider-definition.ts";

/** Scopes as consent guidance lists them: each with the definition's description and sensitivity ("unknown" if unlisted). */
export function listedScopes(
  catalogue: readonly ScopeTemplate[],
  scopes: readonly string[],
): { name: string; description: string; sensitivity: GuidanceSensitivity }[] {
  const byName = new Map(catalogue.map((s) => [s.name, s]));
  return scopes.map((name) => {
    const known = byName.get(name);
    const sensitivity: GuidanceSensitivity = known?.sensitivity ?? "unknown";
    return { name, description: known?.description ?? "", sensitivity };
  });
}
