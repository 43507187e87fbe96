import type { ServiceKey } from "@junction/wiring";
import { SERVICE_TABLE } from "./wiring/service-table.ts";

export type ServiceName = ServiceKey | "gateway";
/** The services of the distributed topology, each run with `junction serve <name>`: the table's, and the gateway. */
export const SERVICES: readonly ServiceName[] = [...SERVICE_TABLE.map((s) => s.name), "gateway"];
