import { Code, ConnectError, type Transport } from "@connectrpc/connect";
import type { Bus } from "@junction/bus";
import type { ReadinessCheck } from "@junction/platform";
import { SERVICE_DEFINITIONS, type ServiceKey } from "@junction/public-api/service-clients";

/** The method a readiness probe calls: one no service serves, so the answer costs the service nothing. */
const PROBE_METHOD = "JunctionReadinessProbe";

/**
 * A service answers over `transport`: a call to a method it does not serve comes back Unimplemented
 * from a running service, and Unavailable (or a timeout) from one that is down.
 */
export function serviceCheck(name: ServiceKey, transport: Transport): ReadinessCheck {
  const desc = SERVICE_DEFINITIONS[name];
  const first = desc.methods[0];
  if (!first) throw new Error(`the ${name} service has no methods`);
  const probe = { ...first, name: PROBE_METHOD, localName: PROBE_METHOD } as typeof first;
  return {
    name: `service:${name}`,
    check: async () => {
      try {
        await transport.unary(probe as never, undefined, 2000, undefined, {} as never);
      } catch (err) {
        const e = ConnectError.from(err);
        // Unimplemented from the service itself; a wiring that does not run it says so in its message.
        if (e.code === Code.Unimplemented && !e.rawMessage.includes("does not run here")) return;
        throw new Error(`the ${name} service does not answer (${Code[e.code]})`);
      }
    },
  };
}

/** The bus answers (the in-process bus's file, or a round trip to NATS). */
export function busCheck(bus: Bus): ReadinessCheck {
  return {
    name: "bus",
    check: async () => {
      try {
        await bus.ready();
      } catch (err) {
        throw new Error(`the bus does not answer: ${err instanceof Error ? err.message : String(err)}`);
      }
    },
  };
}
