import type { ServiceKey } from "@junction/wiring";

/** The variable naming the port a service process listens on (the gateway's is PORT). */
export const portVariable = (name: ServiceKey | "gateway"): string =>
  name === "gateway" ? "PORT" : `JUNCTION_${name.toUpperCase()}_PORT`;

/** The variable naming the URL the other processes reach a service at. */
export const urlVariable = (name: ServiceKey): string => `JUNCTION_${name.toUpperCase()}_URL`;

/** The environment placing service `name` on `port` of 127.0.0.1, for itself and the other processes. */
export function serviceAddressEnv(name: ServiceKey, port: number): Record<string, string> {
  return { [portVariable(name)]: String(port), [urlVariable(name)]: `http://127.0.0.1:${port}` };
}
