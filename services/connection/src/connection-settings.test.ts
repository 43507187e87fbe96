import { describe, expect, test } from "bun:test";
import { loadConnectionSettings } from "./connection-settings.ts";

describe("loadConnectionSettings", () => {
  test("credential reads are on unless the operator switches them off", () => {
    expect(loadConnectionSettings({}).credentialReads).toBe(true);
    expect(loadConnectionSettings({ JUNCTION_CREDENTIAL_READS: "false" }).credentialReads).toBe(false);
    expect(loadConnectionSettings({ JUNCTION_CREDENTIAL_READS: "true" }).credentialReads).toBe(true);
  });

  test("any other value fails naming the variable", () => {
    expect(() => loadConnectionSettings({ JUNCTION_CREDENTIAL_READS: "no" })).toThrow(/JUNCTION_CREDENTIAL_READS/);
  });
});
