import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";

/**
 * The workspace packages as a graph, read from each package.json and from the import statements of
 * its files, for the layering checks in test/layers.test.ts. Test code (tests, conformance suites,
 * `testing/` folders, test kits) may reach anything; production code may not reach test code, and the
 * production graph has no cycle.
 */
export interface WorkspacePackage {
  name: string;
  /** Folder, relative to the repository root. */
  dir: string;
  dependencies: string[];
  devDependencies: string[];
}

/** One production file's import of a workspace package or of test code. */
export interface ProductionImport {
  file: string;
  specifier: string;
}

const TEST_CODE = /(\.test\.ts|\.conformance\.ts|-test-kit\.ts)$|(^|\/)testing\//;
const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

export function isTestCode(path: string): boolean {
  return TEST_CODE.test(path);
}

/** The workspace packages named in the root package.json's `workspaces`, consumers (test, bench) aside. */
export function readWorkspace(root: string, consumers: readonly string[] = ["test", "bench"]): WorkspacePackage[] {
  const rootManifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { workspaces: string[] };
  const dirs = rootManifest.workspaces.flatMap((pattern) => {
    if (!pattern.endsWith("/*")) return [pattern];
    const parent = pattern.slice(0, -2);
    return readdirSync(join(root, parent), { withFileTypes: true })
      .filter((e) => e.isDirectory() && existsSync(join(root, parent, e.name, "package.json")))
      .map((e) => `${parent}/${e.name}`);
  });
  return dirs
    .filter((dir) => !consumers.includes(dir))
    .map((dir) => {
      const manifest = JSON.parse(readFileSync(join(root, dir, "package.json"), "utf8")) as {
        name: string;
        dependencies?: Record<string, string>;
        devDependencies?: Record<string, string>;
      };
      const workspaceOnly = (deps: Record<string, string> | undefined) =>
        Object.keys(deps ?? {}).filter((name) => name.startsWith("@junction/"));
      return {
        name: manifest.name,
        dir,
        dependencies: workspaceOnly(manifest.dependencies),
        devDependencies: workspaceOnly(manifest.devDependencies),
      };
    });
}

/** Every .ts file under a folder, node_modules and generated code aside. */
export function tsFilesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === "node_modules" || entry.name === "gen") continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...tsFilesUnder(path));
    else if (entry.name.endsWith(".ts")) out.push(path);
  }
  return out;
}

export function importsOf(source: string): string[] {
  const out: string[] = [];
  for (const match of source.matchAll(IMPORT)) out.push((match[1] ?? match[2]) as string);
  return out;
}

/** The imports of a package's production files: workspace packages and anything that reaches test code. */
export function productionImports(root: string, pkg: WorkspacePackage): ProductionImport[] {
  const out: ProductionImport[] = [];
  for (const path of tsFilesUnder(join(root, pkg.dir))) {
    const file = relative(root, path);
    if (isTestCode(file)) continue;
    for (const specifier of importsOf(readFileSync(path, "utf8"))) {
      const local = specifier.startsWith(".") ? relative(root, join(dirname(path), specifier)) : specifier;
      if (specifier.startsWith("@junction/") || isTestCode(local)) out.push({ file, specifier });
    }
  }
  return out;
}

/** The package a workspace specifier names (`@junction/x/deep/path` → `@junction/x`). */
export function packageOf(specifier: string): string {
  return specifier.split("/").slice(0, 2).join("/");
}

/** Cycles of a directed graph, each as the names along it (first name repeated at the end). */
export function cyclesOf(edges: ReadonlyMap<string, readonly string[]>): string[][] {
  const cycles: string[][] = [];
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (node: string) => {
    state.set(node, "open");
    stack.push(node);
    for (const next of edges.get(node) ?? []) {
      if (state.get(next) === "open") cycles.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(node, "done");
  };
  for (const node of edges.keys()) if (!state.has(node)) visit(node);
  return cycles;
}

/** The production graph: declared dependencies plus what production files import. */
export function productionGraph(root: string, packages: readonly WorkspacePackage[]): Map<string, string[]> {
  const known = new Set(packages.map((p) => p.name));
  const edges = new Map<string, string[]>();
  for (const pkg of packages) {
    const imported = productionImports(root, pkg)
      .filter((i) => i.specifier.startsWith("@junction/"))
      .map((i) => packageOf(i.specifier));
    const targets = new Set([...pkg.dependencies, ...imported].filter((n) => known.has(n) && n !== pkg.name));
    edges.set(pkg.name, [...targets].sort());
  }
  return edges;
}
