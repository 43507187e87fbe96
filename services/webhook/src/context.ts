import type { Clock, Encryptor, Logger } from "@junction/platform";
import type { WebhookServiceStore } from "./store/store.ts";

/** What the webhook service's handlers need; passed in, never module-level. */
export interface WebhookServiceDeps {
  store: WebhookServiceStore;
  /** Encrypts signing secrets at rest. */
  encryptor: Encryptor;
  clock: Clock;
  logger: Logger;
  /**
   * Lets endpoints point at private, loopback and link-local addresses, and at http://loopback.
   * For local development and tests only; see address-policy.ts.
   */
  allowPrivateEndpoints: boolean;
  /**
   * The id of the environment the service works for (one for now). The composition root passes a
   * function that asks the connection service and remembers the answer.
   */
  environment(): Promise<string>;
}

/** The handlers' view of the service; the deps as they are for now. */
export type WebhookServiceContext = WebhookServiceDeps;
