import { fromConnectError } from "@junction/platform";
import { hashData } from "../src/records/prepare-records.ts";
import type { ScriptRuntime } from "../src/runtime/script-runtime.ts";

/** The runtime of a service kit whose tests run no script. */
export const noSandbox = async (): Promise<ScriptRuntime> => {
  throw new Error("these tests run no script");
};

/** A prepared record `{title: "t-<id>"}`. */
export function titled(id: string) {
  const data = JSON.stringify({ title: `t-${id}` });
  return { id, data, hash: hashData(data) };
}

/** The stable code a call failed with ("no error" when it did not). */
export async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    return fromConnectError(err).code;
  }
  return "no error";
}
