import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { portVariable, urlVariable } from "@junction/cli/wiring/addresses";
import { SERVICE_TABLE } from "@junction/cli/wiring/service-table";
import { SERVICES } from "@junction/cli/service-names";

interface ComposeService {
  command?: string[];
  environment?: Record<string, string>;
  ports?: string[];
}

const compose = Bun.YAML.parse(readFileSync(join(import.meta.dir, "..", "docker-compose.yml"), "utf8")) as {
  services: Record<string, ComposeService>;
};
/** What the compose file runs besides Junction's own processes. */
const INFRASTRUCTURE = ["nats", "mongodb"];
const defaultPort = (name: string) =>
  name === "gateway" ? 3003 : (SERVICE_TABLE.find((s) => s.name === name)?.defaultPort as number);

describe("docker-compose.yml", () => {
  test("has one service per process the code defines, and nothing else but NATS and MongoDB", () => {
    expect(Object.keys(compose.services).sort()).toEqual([...SERVICES, ...INFRASTRUCTURE].sort());
  });

  test("runs each with `serve <name>` on its default port", () => {
    for (const name of SERVICES) {
      const service = compose.services[name] as ComposeService;
      expect({ name, command: service.command }).toEqual({ name, command: ["serve", name] });
      const variable = portVariable(name);
      expect({ name, [variable]: service.environment?.[variable] }).toEqual({
        name,
        [variable]: String(defaultPort(name)),
      });
    }
    expect(compose.services.gateway?.ports).toEqual(["3003:3003"]);
  });

  test("tells every process where every service of the table is, by its compose name and port", () => {
    for (const name of SERVICES) {
      const environment = compose.services[name]?.environment ?? {};
      for (const spec of SERVICE_TABLE) {
        expect({ in: name, [urlVariable(spec.name)]: environment[urlVariable(spec.name)] }).toEqual({
          in: name,
          [urlVariable(spec.name)]: `http://${spec.name}:${spec.defaultPort}`,
        });
      }
      // Listening on every address of the container: the other containers reach it by name.
      expect({ in: name, host: environment.JUNCTION_HOST }).toEqual({ in: name, host: "0.0.0.0" });
    }
  });
});
