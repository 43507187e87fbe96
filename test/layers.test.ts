import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import {
  cyclesOf,
  isTestCode,
  packageOf,
  productionGraph,
  productionImports,
  readWorkspace,
} from "./support/package-graph.ts";

const ROOT = join(import.meta.dir, "..");

/** Every .ts file and package.json under a folder, node_modules aside. */
function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === "node_modules") continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(path));
    else if (entry.name.endsWith(".ts") || entry.name === "package.json") out.push(path);
  }
  return out;
}

/** A module specifier (or package.json dependency) that reaches the gateway, by package name or by path. */
const GATEWAY = /["'](?:@junction\/gateway(?:\/[^"']*)?|(?:\.\.\/)+gateway\/[^"']*)["']/;

describe("the layers", () => {
  test("no file of a service or of the scripts runtime imports the gateway or depends on it", () => {
    const files = ["services", "scripts-runtime"].flatMap((dir) => filesUnder(join(ROOT, dir)));
    expect(files.length).toBeGreaterThan(100);
    const offenders = files.filter((file) => GATEWAY.test(readFileSync(file, "utf8"))).map((f) => relative(ROOT, f));
    expect(offenders).toEqual([]);
  });

  test("the wiring package (below the services) imports no service, scripts runtime, gateway or cli", () => {
    const ABOVE = /["']@junction\/(?:[a-z-]+-service|service-specs|scripts-runtime|gateway|cli)(?:\/[^"']*)?["']/;
    const files = filesUnder(join(ROOT, "packages/wiring"));
    expect(files.length).toBeGreaterThan(3);
    const offenders = files.filter((file) => ABOVE.test(readFileSync(file, "utf8"))).map((f) => relative(ROOT, f));
    expect(offenders).toEqual([]);
    expect(ABOVE.test('import { connectionSpec } from "@junction/service-specs";')).toBe(true);
  });

  test("the check sees an import of the gateway, by name or by path", () => {
    expect(GATEWAY.test('import type { GatewayClients } from "@junction/gateway";')).toBe(true);
    expect(GATEWAY.test('import { x } from "@junction/gateway/http/error-response";')).toBe(true);
    expect(GATEWAY.test('"@junction/gateway": "workspace:*"')).toBe(true);
    expect(GATEWAY.test('import { x } from "../../../gateway/src/routes/present.ts";')).toBe(true);
    expect(GATEWAY.test('import { x } from "@junction/public-api/service-clients";')).toBe(false);
  });
});

describe("file sizes (no file over 400 lines outside tests and generated code)", () => {
  /** Test code: tests, conformance suites, test kits and fakes' test helpers; generated code. */
  const EXEMPT = /(\.test\.ts|\.conformance\.ts|-kit\.ts)$|\/(gen|testing)\//;

  test("every other .ts file has at most 400 lines", () => {
    const files = ["packages", "services", "gateway", "scripts-runtime", "cli", "bench", "scripts"].flatMap((dir) =>
      filesUnder(join(ROOT, dir)).filter((f) => f.endsWith(".ts")),
    );
    expect(files.length).toBeGreaterThan(300);
    const long = files
      .filter((file) => !EXEMPT.test(relative(ROOT, file)))
      .map((file) => [relative(ROOT, file), readFileSync(file, "utf8").split("\n").length - 1] as const)
      .filter(([, lines]) => lines > 400);
    expect(long).toEqual([]);
  });
});

describe("the package graph", () => {
  const packages = readWorkspace(ROOT);

  test("the workspace is read whole", () => {
    const names = packages.map((p) => p.name);
    expect(names).toContain("@junction/platform");
    expect(names).toContain("@junction/scripts-runtime");
    expect(names).toContain("@junction/cli");
    expect(names.length).toBeGreaterThan(15);
  });

  test("no cycle between workspace packages in production (dependencies and production imports)", () => {
    expect(cyclesOf(productionGraph(ROOT, packages))).toEqual([]);
  });

  test("no production file imports test code (a testing folder, a test kit, a test or a conformance suite)", () => {
    const offenders = packages.flatMap((pkg) =>
      productionImports(ROOT, pkg)
        .filter((i) => isTestCode(i.specifier))
        .map((i) => `${i.file} -> ${i.specifier}`),
    );
    expect(offenders).toEqual([]);
  });

  test("every workspace package a production file imports is a declared dependency, not a dev one", () => {
    const undeclared = packages.flatMap((pkg) =>
      productionImports(ROOT, pkg)
        .filter((i) => i.specifier.startsWith("@junction/"))
        .filter((i) => packageOf(i.specifier) !== pkg.name && !pkg.dependencies.includes(packageOf(i.specifier)))
        .map((i) => `${i.file} -> ${i.specifier}`),
    );
    expect(undeclared).toEqual([]);
  });

  test("testcontainers is nobody's production dependency", () => {
    const offenders = packages
      .map((p) => p.dir)
      .filter((dir) => {
        const manifest = JSON.parse(readFileSync(join(ROOT, dir, "package.json"), "utf8"));
        return "testcontainers" in (manifest.dependencies ?? {});
      });
    expect(offenders).toEqual([]);
  });

  test("the checks fail on a planted cycle and on planted imports of test code", () => {
    const planted = new Map([
      ["@junction/a", ["@junction/b"]],
      ["@junction/b", ["@junction/c"]],
      ["@junction/c", ["@junction/a"]],
      ["@junction/d", ["@junction/a"]],
    ]);
    expect(cyclesOf(planted)).toEqual([["@junction/a", "@junction/b", "@junction/c", "@junction/a"]]);
    expect(
      cyclesOf(
        new Map([
          ["@junction/a", ["@junction/b"]],
          ["@junction/b", []],
        ]),
      ),
    ).toEqual([]);
    expect(isTestCode("@junction/webhook-service/testing/webhook-test-kit")).toBe(true);
    expect(isTestCode("services/connection/testing/oauth-test-kit.ts")).toBe(true);
    expect(isTestCode("services/channel/src/managed/managed-test-kit.ts")).toBe(true);
    expect(isTestCode("packages/bus/src/bus.conformance.ts")).toBe(true);
    expect(isTestCode("services/webhook/src/inbound/inbound-worker.ts")).toBe(false);
    expect(isTestCode("packages/providers/src/fake-kit/index.ts")).toBe(false);
  });
});

describe("comments say why, not history", () => {
  /** "issue 21", "Issue 22, item 3": the tracker's numbers belong in commit messages, not in the code. */
  const ISSUE_NOTE = /\bissues? \d+/i;

  test("no source or test file names an issue by its number", () => {
    const files = ["packages", "services", "gateway", "scripts-runtime", "cli", "bench", "scripts", "test"].flatMap(
      (dir) => filesUnder(join(ROOT, dir)).filter((f) => f.endsWith(".ts") && !f.includes("/gen/")),
    );
    expect(files.length).toBeGreaterThan(300);
    const noted = files
      .filter((file) => ISSUE_NOTE.test(readFileSync(file, "utf8")))
      .map((file) => relative(ROOT, file))
      .filter((file) => file !== "test/layers.test.ts");
    expect(noted).toEqual([]);
    expect(ISSUE_NOTE.test("// Issue 22, item 3: after a connection is created")).toBe(true);
    expect(ISSUE_NOTE.test("(issues 6, 20)")).toBe(true);
    expect(ISSUE_NOTE.test("an issuer 5 minutes")).toBe(false);
  });
});
