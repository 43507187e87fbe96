import { describe, expect, test } from "bun:test";
import { SERVICE_KEYS } from "../../packages/public-api/src/service-clients.ts";
import { loadCommonConfig, loadLogLevel, loadPort } from "@junction/platform";
import { adminPort } from "../../cli/src/admin-server.ts";
import { loadObserveSettings } from "../../cli/src/observe-settings.ts";
import { loadConnectUiSettings } from "../../gateway/src/connect-ui/connect-ui-settings.ts";
import { loadMcpAuthSettings } from "../../gateway/src/mcp-auth/mcp-auth-settings.ts";
import { loadProcessSettings } from "../../cli/src/process-settings.ts";
import { loadGatewaySettings } from "../../cli/src/wiring/gateway-settings.ts";
import { portVariable, urlVariable } from "../../cli/src/wiring/addresses.ts";
import { SERVICE_TABLE } from "../../cli/src/wiring/service-table.ts";
import { loadAuthSocketSettings } from "../../gateway/src/auth-socket/auth-socket-settings.ts";
import { loadOverviewSettings } from "../../gateway/src/overview/overview-settings.ts";
import { loadProxySettings } from "../../packages/upstream-proxy/src/proxy-settings.ts";
import { loadOAuthSettings } from "../../services/connection/src/oauth/oauth-settings.ts";
import { loadRecorderSettings } from "../../packages/platform/src/operations/recorder-settings.ts";
import { ROOT, readDoc } from "./markdown.ts";

// The configuration table (docs/configuration.md) lists every variable the code reads, and
// nothing else. The code's side: every settings loader run against an environment that records what is
// asked of it, the service ports and addresses, and every variable read by name in product code.

type Env = Record<string, string | undefined>;

/** The variable names `load` asks for; enumerating the environment is reported as "*". */
function namesRead(load: (env: Env) => unknown): Set<string> {
  const read = new Set<string>();
  const env = new Proxy({} as Env, {
    get(_target, key) {
      if (typeof key === "string") read.add(key);
      return undefined;
    },
    ownKeys() {
      read.add("*");
      return [];
    },
  });
  load(env);
  return read;
}

/** Every file of product code (tests, test kits, benchmarks and generated code aside). */
function productFiles(): string[] {
  const run = Bun.spawnSync(["git", "ls-files", "-co", "--exclude-standard", "*.ts"], { cwd: ROOT });
  return run.stdout
    .toString()
    .split("\n")
    .filter((f) => f !== "" && !f.includes("node_modules/"))
    .filter((f) => !/\.test\.ts$|^test\/|^bench\/|\/gen\/|\/testing\/|test-kit\.ts$|\.conformance\.ts$/.test(f));
}

/** The files that read settings through `loadConfig` or `loadPort`, each covered by a loader run below. */
const LOADER_FILES = [
  "cli/src/admin-server.ts",
  "cli/src/distributed.ts",
  "cli/src/observe-settings.ts",
  "cli/src/process-settings.ts",
  "cli/src/wiring/gateway-settings.ts",
  "gateway/src/auth-socket/auth-socket-settings.ts",
  "gateway/src/connect-ui/connect-ui-settings.ts",
  "gateway/src/mcp-auth/mcp-auth-settings.ts",
  "gateway/src/overview/overview-settings.ts",
  "packages/platform/src/common-config.ts",
  "packages/platform/src/config.ts",
  "packages/platform/src/operations/recorder-settings.ts",
  "packages/upstream-proxy/src/proxy-settings.ts",
  "scripts-runtime/src/service/config.ts",
  "services/channel/src/config.ts",
  "services/connection/src/connection-settings.ts",
  "services/connection/src/oauth/oauth-settings.ts",
  "services/logs/src/config.ts",
  "services/proxy/src/config.ts",
  "services/webhook/src/config.ts",
];

/** The names the code reads. The per-provider test credentials are found by enumeration: one pattern. */
function variablesTheCodeReads(files: string[], text: (file: string) => string): Set<string> {
  const names = new Set<string>();
  const add = (set: Set<string>) => {
    for (const n of set) names.add(n);
  };
  for (const load of [
    loadCommonConfig,
    loadProcessSettings,
    loadLogLevel,
    loadProxySettings,
    loadObserveSettings,
    loadAuthSocketSettings,
    loadConnectUiSettings,
    loadOverviewSettings,
    loadMcpAuthSettings,
    loadRecorderSettings,
    loadGatewaySettings,
  ]) {
    const read = namesRead(load);
    expect(read.has("*")).toBe(false);
    add(read);
  }
  for (const spec of SERVICE_TABLE) add(namesRead((env) => spec.config(env)));
  const oauth = namesRead((env) => loadOAuthSettings(env));
  if (oauth.delete("*")) names.add("JUNCTION_TEST_CREDENTIALS_<PROVIDER>");
  add(oauth);
  names.delete("*");
  add(namesRead((env) => loadPort(env, "", 3003)));
  for (const key of SERVICE_KEYS) {
    add(namesRead((env) => adminPort(env, key, 4100)));
    names.add(portVariable(key));
    names.add(urlVariable(key));
  }
  for (const file of files) {
    for (const m of text(file).matchAll(
      /\b(?:env|process\.env|Bun\.env)(?:\.([A-Z][A-Z0-9_]*)|\[["']([A-Z][A-Z0-9_]*)["']\])/g,
    )) {
      names.add((m[1] ?? m[2]) as string);
    }
  }
  return names;
}

/** The names in the first column of docs/configuration.md's table; `<SERVICE>` stands for each service. */
function variablesTheTableLists(markdown: string): Set<string> {
  const names = new Set<string>();
  for (const row of markdown.split("\n").filter((l) => l.startsWith("| `"))) {
    const firstCell = row.split("|")[1] ?? "";
    for (const m of firstCell.matchAll(/`([A-Z][A-Z0-9_<>]*)`/g)) {
      const name = m[1] as string;
      if (name.includes("<SERVICE>"))
        for (const key of SERVICE_KEYS) names.add(name.replace("<SERVICE>", key.toUpperCase()));
      else names.add(name);
    }
  }
  return names;
}

const missingFrom = (a: Set<string>, b: Set<string>) => [...a].filter((n) => !b.has(n)).sort();

describe("the configuration table (docs/configuration.md)", () => {
  const files = productFiles();
  const table = variablesTheTableLists(readDoc("docs/configuration.md"));
  let read: Set<string> | undefined;
  const code = () => {
    read ??= variablesTheCodeReads(files, (f) => readDoc(f));
    return read;
  };

  test("every settings loader of the code is run by this test", () => {
    const loaders = files.filter((f) => /\bloadConfig\(|\bloadPort\(/.test(readDoc(f))).sort();
    expect(loaders).toEqual(LOADER_FILES);
  });

  test("lists every variable the code reads", () => {
    expect(code().size).toBeGreaterThan(60);
    expect(missingFrom(code(), table)).toEqual([]);
  });

  test("lists no variable the code does not read", () => {
    expect(missingFrom(table, code())).toEqual([]);
  });

  test("the image and the compose file set only variables the table lists", () => {
    const set = [
      ...readDoc("Dockerfile").matchAll(/^ENV ([A-Z][A-Z0-9_]*)=/gm),
      ...readDoc("docker-compose.yml").matchAll(/^\s+([A-Z][A-Z0-9_]*):/gm),
    ].map((m) => m[1] as string);
    expect(set.length).toBeGreaterThan(10);
    expect(set.filter((n) => !table.has(n))).toEqual([]);
  });

  test("the comparison sees a variable read by name and one the table lacks", () => {
    const found = variablesTheCodeReads(["x.ts"], () => 'const a = env.JUNCTION_NEW_THING; const b = env["OTEL_X"];');
    expect(found.has("JUNCTION_NEW_THING")).toBe(true);
    expect(found.has("OTEL_X")).toBe(true);
    expect(missingFrom(found, table)).toEqual(["JUNCTION_NEW_THING", "OTEL_X"]);
    const listed = variablesTheTableLists("| `JUNCTION_<SERVICE>_PORT`, `PORT` | 1 | x |\n| not `A_ROW` |");
    expect([...listed].sort()).toEqual([
      "JUNCTION_CHANNEL_PORT",
      "JUNCTION_CONNECTION_PORT",
      "JUNCTION_LOGS_PORT",
      "JUNCTION_PROXY_PORT",
      "JUNCTION_SCRIPTS_PORT",
      "JUNCTION_WEBHOOK_PORT",
      "PORT",
    ]);
  });
});
