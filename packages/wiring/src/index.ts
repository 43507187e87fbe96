export { type BuildOptions, InMemoryWiring, type InMemoryWiringOptions, partsOf } from "./in-memory-wiring.ts";
export type {
  Env,
  ServiceClients,
  ServiceKey,
  ServiceSpec,
  TestCredential,
  TestCredentials,
  WiredService,
  WiringContext,
} from "./service-spec.ts";
export { buildService, lateClients, lateTransport, type ProcessWiring } from "./wire.ts";
export { SERVICE_DEFINITIONS, SERVICE_KEYS } from "@junction/public-api/service-clients";
export { busCheck, serviceCheck } from "./readiness-checks.ts";
export type { MatchedNotification, NotificationSink, SinkResult } from "./notification-sink.ts";
