import type { MountedRoute, RequestContext } from "./router.ts";
import type { StateChanges } from "./state-changes.ts";

/** What the runner hands each fake when it starts it. */
export interface FakeHost {
  /** The server's origin, e.g. `http://127.0.0.1:41234`: every host a fake plays maps to it. */
  url: string;
  /** Injected clock (Unix ms). */
  now: () => number;
  /** Shared by every fake: call `changed()` after any change a test may wait on. */
  changes: StateChanges;
  /** The instance of a fake this one builds on: started once with the same options, shared by its users. */
  use<I extends FakeInstance>(fake: ProviderFake<never, I>): I;
}

/** The URLs a sandbox credential of one provider points at (the runner adds the client and its secret). */
export interface SandboxCredentialUrls {
  authorizationUrl: string;
  tokenUrl: string;
  baseUrl: string;
}

/** What a started fake gives the runner; every part is optional. */
export interface FakeInstance {
  /** Served in registry order, each fake's in its own order; the first match wins. */
  routes?: MountedRoute[];
  /** Methods for tests, merged into the object `startFakeUpstream` returns (names must not collide). */
  controls?: object;
  /** Live read-only views for assertions, merged into its `state` (getters are kept). */
  state?: object;
  /** Ready-made URLs for a provider's template, merged into its `endpoints`. */
  endpoints?: Record<string, string>;
  /** Sandbox test credentials by provider name (`junction serve` with the sandbox upstream). */
  sandboxCredentials?: Record<string, SandboxCredentialUrls>;
  /** The answer when no route matches; the first fake that has one gives it. */
  notFound?(ctx: RequestContext): Response;
  /** Called when the server stops, before it closes (drop queued work). */
  stop?(): void;
  /** What the sandbox keeps across restarts (in its data dir): users, clients and what they were issued. */
  persistence?: FakePersistence;
}

/** A fake's state as JSON: `save` after requests, `restore` once at start before any request. */
export interface FakePersistence {
  save(): unknown;
  restore(saved: unknown): void;
}

/**
 * One provider's fake: `start` builds its state and routes. `O` is its options (the runner passes
 * every fake the same options object; each reads and defaults its own fields), `I` what it gives back.
 */
export interface ProviderFake<O, I extends FakeInstance> {
  /** For messages, e.g. "google-calendar". */
  name: string;
  start(host: FakeHost, options: O): I;
}
