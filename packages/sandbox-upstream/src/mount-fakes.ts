import type {
  FakeHost,
  FakeInstance,
  MountedRoute,
  ProviderFake,
  RequestContext,
  SandboxCredentialUrls,
  StateChanges,
} from "@junction/providers/fake-kit";

/** Every fake started and merged: what the server dispatches to and what tests see. */
export interface MountedFakes {
  routes: MountedRoute[];
  controls: object;
  state: object;
  endpoints: Record<string, string>;
  sandboxCredentials: Record<string, SandboxCredentialUrls>;
  notFound(ctx: RequestContext): Response;
  /** Stops every fake (drops queued work); the server is closed by its owner. */
  stop(): void;
  /** The state every fake keeps across restarts, by fake name. */
  save(): Record<string, unknown>;
  /** Gives each fake what `save` returned for it; before any request. */
  restore(saved: Record<string, unknown>): void;
}

/**
 * Starts `fakes` on one origin with the same options. A fake another one uses (`host.use`) is started
 * once, before its user; routes are tried in start order (dependencies first, then the list's order).
 */
export function mountFakes(
  fakes: readonly ProviderFake<never, FakeInstance>[],
  base: { url: string; now: () => number; changes: StateChanges },
  options: object,
): MountedFakes {
  const started = new Map<ProviderFake<never, FakeInstance>, FakeInstance>();
  const starting = new Set<ProviderFake<never, FakeInstance>>();
  const host: FakeHost = {
    ...base,
    use<I extends FakeInstance>(fake: ProviderFake<never, I>): I {
      const done = started.get(fake);
      if (done) return done as I;
      if (starting.has(fake)) throw new Error(`fake-upstream: fake ${fake.name} uses itself`);
      starting.add(fake);
      const instance = fake.start(host, options as never);
      started.set(fake, instance);
      return instance;
    },
  };
  for (const fake of fakes) host.use(fake);

  const instances = [...started.values()];
  const state = {};
  for (const instance of instances) {
    if (instance.state) Object.defineProperties(state, Object.getOwnPropertyDescriptors(instance.state));
  }
  const fallback = instances.find((i) => i.notFound)?.notFound;
  return {
    routes: instances.flatMap((i) => i.routes ?? []),
    controls: Object.assign({}, ...instances.map((i) => i.controls ?? {})),
    state,
    endpoints: Object.assign({}, ...instances.map((i) => i.endpoints ?? {})),
    sandboxCredentials: Object.assign({}, ...instances.map((i) => i.sandboxCredentials ?? {})),
    notFound: (ctx) => fallback?.(ctx) ?? new Response("Not Found", { status: 404 }),
    stop() {
      for (const instance of instances) instance.stop?.();
    },
    save() {
      const out: Record<string, unknown> = {};
      for (const [fake, instance] of started) if (instance.persistence) out[fake.name] = instance.persistence.save();
      return out;
    },
    restore(saved) {
      for (const [fake, instance] of started) {
        if (instance.persistence && saved[fake.name] !== undefined) instance.persistence.restore(saved[fake.name]);
      }
    },
  };
}
