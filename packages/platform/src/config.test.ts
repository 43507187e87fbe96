import { describe, expect, test } from "bun:test";
import { z } from "zod";
import { ConfigError, flagSetting, loadConfig, loadLogLevel, loadPort } from "./config.ts";
import { encryptorFromConfig, loadCommonConfig } from "./common-config.ts";

describe("config", () => {
  test("defaults, then prefixed environment variables", () => {
    const schema = z.object({ port: z.coerce.number().default(3003), dataDir: z.string().default(".data") });
    expect(loadConfig(schema, { prefix: "JUNCTION_", env: {} })).toEqual({ port: 3003, dataDir: ".data" });
    expect(
      loadConfig(schema, { prefix: "JUNCTION_", env: { JUNCTION_PORT: "8080", JUNCTION_DATA_DIR: "/d" } }),
    ).toEqual({
      port: 8080,
      dataDir: "/d",
    });
  });

  test("fails fast naming the variable", () => {
    const schema = z.object({ port: z.coerce.number().int() });
    expect(() => loadConfig(schema, { prefix: "JUNCTION_", env: { JUNCTION_PORT: "abc" } })).toThrow(/JUNCTION_PORT/);
  });

  test("the encryption key is required outside the embedded default", () => {
    const cfg = loadCommonConfig({ JUNCTION_DATA_DIR: "/tmp/unused" });
    expect(() => encryptorFromConfig(cfg, { embedded: false })).toThrow(ConfigError);
    expect(() => encryptorFromConfig(cfg, { embedded: false })).toThrow(/JUNCTION_ENCRYPTION_KEY/);
  });

  test("JUNCTION_ENCRYPTION_KEYS lists keys with ids, the first current; mixing it with the single key is refused", () => {
    const k = (n: number) => Buffer.alloc(32, n).toString("base64");
    const keys = { JUNCTION_DATA_DIR: "/tmp/unused", JUNCTION_ENCRYPTION_KEYS: `2026:${k(1)},2025:${k(2)}` };
    const enc = encryptorFromConfig(loadCommonConfig(keys), { embedded: false });
    expect(enc.currentKeyId).toBe("2026");
    // A value sealed under the single-key setting (its id a hash of the key) still opens once the key is listed.
    const before = encryptorFromConfig(loadCommonConfig({ JUNCTION_ENCRYPTION_KEY: k(2) }), { embedded: false });
    expect(enc.decrypt(before.encrypt("x", "row"), "row")).toBe("x");
    const both = loadCommonConfig({ ...keys, JUNCTION_ENCRYPTION_KEY: k(3) });
    expect(() => encryptorFromConfig(both, { embedded: false })).toThrow(/not both/);
    const bad = loadCommonConfig({ JUNCTION_ENCRYPTION_KEYS: `a:${k(1)},a:${k(2)}` });
    expect(() => encryptorFromConfig(bad, { embedded: false })).toThrow(/JUNCTION_ENCRYPTION_KEYS: .*listed twice/);
    expect(() => encryptorFromConfig(loadCommonConfig({ JUNCTION_ENCRYPTION_KEYS: " " }), { embedded: false })).toThrow(
      /lists no key/,
    );
  });

  test("MongoDB storage requires its URL", () => {
    expect(() => loadCommonConfig({ JUNCTION_STORE: "mongodb" })).toThrow(/JUNCTION_MONGODB_URL/);
  });

  test("PORT and JUNCTION_<SERVICE>_PORT are read through a schema: unset is the default, nonsense fails naming it", () => {
    expect(loadPort({}, "", 3003)).toBe(3003);
    expect(loadPort({ PORT: "8080" }, "", 3003)).toBe(8080);
    expect(loadPort({ PORT: "0" }, "", 3003)).toBe(0);
    expect(loadPort({ JUNCTION_PROXY_PORT: "4555", PORT: "1" }, "JUNCTION_PROXY_", 4102)).toBe(4555);
    expect(() => loadPort({ PORT: "eighty" }, "", 3003)).toThrow(/PORT/);
    expect(() => loadPort({ JUNCTION_PROXY_PORT: "70000" }, "JUNCTION_PROXY_", 4102)).toThrow(/JUNCTION_PROXY_PORT/);
  });

  test("a yes/no setting reads the usual spellings and refuses others", () => {
    const schema = z.object({ allowIt: flagSetting });
    const read = (value?: string) => loadConfig(schema, { prefix: "X_", env: { X_ALLOW_IT: value } }).allowIt;
    expect(read()).toBe(false);
    for (const yes of ["1", "true", "YES", " on "]) expect(read(yes)).toBe(true);
    for (const no of ["0", "false", "No", "off"]) expect(read(no)).toBe(false);
    expect(() => read("maybe")).toThrow(/X_ALLOW_IT/);
  });

  test("JUNCTION_LOG_LEVEL is read through a schema: info when unset, any case, nonsense fails naming it", () => {
    expect(loadLogLevel({})).toBe("info");
    expect(loadLogLevel({ JUNCTION_LOG_LEVEL: "warn" })).toBe("warn");
    expect(loadLogLevel({ JUNCTION_LOG_LEVEL: " DEBUG " })).toBe("debug");
    expect(() => loadLogLevel({ JUNCTION_LOG_LEVEL: "loud" })).toThrow(/JUNCTION_LOG_LEVEL/);
  });
});
