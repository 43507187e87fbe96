import { describe, expect, test } from "bun:test";
import { z } from "zod";
import { ConfigError, loadConfig } from "./config.ts";
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

  test("MongoDB storage requires its URL", () => {
    expect(() => loadCommonConfig({ JUNCTION_STORE: "mongodb" })).toThrow(/JUNCTION_MONGODB_URL/);
  });
});
