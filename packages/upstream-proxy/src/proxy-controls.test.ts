import { describe, expect, test } from "bun:test";
import type { JunctionError } from "@junction/platform";
import { readProxyControls } from "./proxy-controls.ts";

const base = { "provider-config-key": "cal", "connection-id": "alice" };
const failure = (headers: Record<string, string>) => {
  try {
    readProxyControls(new Headers(headers));
  } catch (err) {
    return err as JunctionError;
  }
  throw new Error("accepted");
};

describe("proxy control headers", () => {
  test("reads Nango's headers, case-insensitively", () => {
    const c = readProxyControls(
      new Headers({
        "Provider-Config-Key": "cal",
        "CONNECTION-ID": "alice",
        Retries: "3",
        "Retry-On": "409, 423",
        "Base-Url-Override": "https://www.googleapis.com",
        Decompress: "TRUE",
      }),
    );
    expect(c).toEqual({
      providerConfigKey: "cal",
      connectionId: "alice",
      retries: 3,
      retryOn: new Set([409, 423]),
      baseUrlOverride: "https://www.googleapis.com",
      decompress: true,
    });
  });

  test("an empty value counts as absent, for every header", () => {
    const c = readProxyControls(
      new Headers({ ...base, retries: "", "retry-on": " ", "base-url-override": "", decompress: "" }),
    );
    expect(c).toMatchObject({ retries: undefined, retryOn: new Set(), baseUrlOverride: undefined, decompress: false });
    expect(failure({ "provider-config-key": "", "connection-id": "a" }).message).toBe(
      "Missing required header Provider-Config-Key.",
    );
  });

  test("reports every problem at once, each naming its header", () => {
    const err = failure({ retries: "x", "retry-on": "600", decompress: "maybe" });
    expect(err.code).toBe("invalid_headers");
    expect(err.errors.map((e) => e.path)).toEqual([
      "Provider-Config-Key",
      "Connection-Id",
      "Retries",
      "Retry-On",
      "Decompress",
    ]);
    expect(err.errors.every((e) => e.location === "header")).toBe(true);
    expect(failure({ ...base, retries: "1.5" }).message).toBe(
      "Invalid header: Retries must be a whole number of retries, e.g. 3.",
    );
  });
});
