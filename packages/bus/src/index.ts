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
export { connectNats } from "./nats.ts";
export { NatsBus, type NatsBusOptions, WORK_STREAM } from "./nats-bus.ts";
export { queueSubject, queues, subjects, token } from "./subjects.ts";
