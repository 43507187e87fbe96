import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError } from "@junction/platform";
import { OutboundAddressPolicy } from "@junction/platform/outbound-address-policy";
import { loadDefinitionFiles } from "./definition-files.ts";

// When saved, from the data dir too: a definition file whose URLs the address policy refuses stops the
// start, naming the file and the field; a host the operator allowed loads.

const PRIVATE = ["127.0.0.2:9", "[::1]", "localhost.", "2130706434", "0x7f000002", "0177.0.0.2", "127.1", "0.0.0.0"];
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function dirWith(definition: Record<string, unknown>): string {
  const dir = mkdtempSync(join(tmpdir(), "junction-defs-"));
  dirs.push(dir);
  writeFileSync(
    join(dir, "acme.json"),
    JSON.stringify({ name: "acme-files", displayName: "Acme", authMode: "API_KEY", ...definition }),
  );
  return dir;
}

describe("definition files and the address policy", () => {
  test.each(PRIVATE.map((h) => `http://${h}/api`))("baseUrl %s stops the start", (url) => {
    const dir = dirWith({ baseUrl: url });
    const load = () => loadDefinitionFiles(dir, [], new OutboundAddressPolicy());
    expect(load).toThrow(ConfigError);
    expect(load).toThrow(/acme\.json: Provider definition "acme-files" is refused: baseUrl points at/);
  });

  test("a token URL on a private host stops the start too; an operator-allowed host loads", () => {
    const oauth = { authMode: "OAUTH2", baseUrl: "https://api.acme.test", authorizationUrl: "https://acme.test/a" };
    const dir = dirWith({ ...oauth, tokenUrl: "http://127.0.0.1:9/token" });
    expect(() => loadDefinitionFiles(dir, [], new OutboundAddressPolicy())).toThrow(/tokenUrl points at 127\.0\.0\.1/);
    const allowed = loadDefinitionFiles(dir, [], new OutboundAddressPolicy({ allowedHosts: ["127.0.0.1"] }));
    expect(allowed.map((a) => a.name)).toEqual(["acme-files"]);
  });
});
