export type {
  Bus,
  BusMessage,
  ConsumeOptions,
  EnqueueOptions,
  Job,
  SubscribeOptions,
  Subscription,
} from "./bus.ts";
export { DEFAULT_ACK_WAIT_MS, DEFAULT_DEDUP_WINDOW_MS } from "./defaults.ts";
export { MemoryBus, type MemoryBusOptions } from "./memory-bus.ts";
export { MeteredBus } from "./metered-bus.ts";
export { TracedBus } from "./traced-bus.ts";
// The NATS bus (distributed topology) is imported from "@junction/bus/nats-bus" and "@junction/bus/nats",
// not from here: the embedded default never loads the NATS client.
export { queueSubject, queues, subjects, token } from "./subjects.ts";
