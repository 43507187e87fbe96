/**
 * Helpers shared by the nango-sdk*.test.ts files: Junction (embedded) in front of the fake upstream,
 * driven by Nango's own Node SDK (`@nangohq/node`) pointed at it with `new Nango({ secretKey, host })`.
 */
import { afterAll, beforeAll } from "bun:test";
import { Nango } from "@nangohq/node";
import { TEST_SECRET_KEY } from "../support/embedded-junction.ts";
import { type CustomerReceiver, startCustomerReceiver } from "./notifications-kit.ts";
import { type ProxyHarness, startProxyHarness } from "./proxy-kit.ts";

export { ALICE, CALENDAR, CONNECTION, MAIL } from "./proxy-kit.ts";

export interface SdkHarness extends ProxyHarness {
  /** Nango's client, as its docs instantiate it, aimed at Junction. */
  nango: Nango;
}

/** The proxy harness (integrations "cal" and "mail", connection "alice" on each) plus an SDK client. */
export async function startSdkHarness(): Promise<SdkHarness> {
  const h = await startProxyHarness();
  const nango = new Nango({ secretKey: TEST_SECRET_KEY, host: h.junction.url });
  return Object.assign(h, { nango });
}

/** What Junction answered when an SDK call threw: the HTTP status and Junction's error code. */
export async function sdkFailure(call: Promise<unknown>): Promise<{ status: number; code: string }> {
  try {
    await call;
  } catch (err) {
    // The SDK's calls throw axios errors carrying the response.
    const response = (err as { response?: { status: number; data?: { error?: { code?: string } } } }).response;
    if (response) return { status: response.status, code: response.data?.error?.code ?? "" };
    throw err;
  }
  throw new Error("the SDK call succeeded; a failure was expected");
}

/** A customer webhook receiver for the enclosing describe: started before its tests, stopped after. */
export function useReceiver(): () => CustomerReceiver {
  let receiver: CustomerReceiver | undefined;
  beforeAll(() => {
    receiver = startCustomerReceiver();
  });
  afterAll(async () => {
    await receiver?.stop();
  });
  return () => {
    if (!receiver) throw new Error("the receiver starts before the describe's tests");
    return receiver;
  };
}
