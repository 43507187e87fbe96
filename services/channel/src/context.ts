import type { Clock, Logger } from "@junction/platform";
import type { ChannelStore } from "./store/store.ts";

/** What the channel service's handlers need; passed in, never module-level. */
export interface ChannelServiceDeps {
  store: ChannelStore;
  /** The time channels are read at: an active channel past its expiration reads as expired. */
  clock: Clock;
  logger: Logger;
  /** The environment id the calls are made in (one account, one environment for now). */
  environment: () => Promise<string>;
}
