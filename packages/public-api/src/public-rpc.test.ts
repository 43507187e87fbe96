import { describe, expect, test } from "bun:test";
import { PUBLIC_RPC_METHODS, type PublicServiceKey } from "./public-rpc.ts";
import { SERVICE_DEFINITIONS } from "./service-clients.ts";

/** RPCs that hand out secrets or take the services' own traffic: never public. */
const INTERNAL = [
  "verifySecretKey",
  "createSecretKey",
  "getCredentials",
  "resolveUpstream",
  "reportChannelCall",
  "receiveNotifications",
  "checkNotifications",
  "handleChannelLifecycle",
  "matchNotifications",
  "submitConnectForm",
  "completeAuthorization",
  "rotateSigningSecret",
  "dispatchNotification",
  "runLifecycleEvent",
];

describe("the public RPCs", () => {
  test("each is a unary method of its service", () => {
    for (const key of Object.keys(PUBLIC_RPC_METHODS) as PublicServiceKey[]) {
      const methods = SERVICE_DEFINITIONS[key].method as Record<string, { methodKind: string }>;
      for (const name of PUBLIC_RPC_METHODS[key]) expect(methods[name]?.methodKind).toBe("unary");
    }
  });

  test("hold none of the internal ones, and no proxy RPC at all", () => {
    const all: string[] = Object.values(PUBLIC_RPC_METHODS).flat();
    expect(all.filter((name) => INTERNAL.includes(name))).toEqual([]);
    expect(Object.keys(PUBLIC_RPC_METHODS)).not.toContain("proxy");
    for (const name of INTERNAL) {
      const owners = Object.values(SERVICE_DEFINITIONS).filter((s) => name in s.method);
      expect(owners.length).toBe(1);
    }
  });
});
