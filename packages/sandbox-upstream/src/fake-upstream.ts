import {
  dispatch,
  headersObject,
  type RawRequest,
  type RequestContext,
  type SandboxCredentialUrls,
  StateChanges,
  startRawHttpServer,
} from "@junction/providers/fake-kit";
import {
  FAKES,
  type FakesControls,
  type FakesEndpoints,
  type FakesOptions,
  type FakesState,
} from "@junction/providers/fakes";
import { mountFakes } from "./mount-fakes.ts";

/** Options for `startFakeUpstream`: the server's, then every provider fake's (each has test-friendly defaults). */
export type FakeUpstreamOptions = {
  /** Port to listen on, on 127.0.0.1. Default 0 (a free port). */
  port?: number;
  /** Injected clock in Unix ms, used for token, code and channel expiry. Default `Date.now`. */
  now?: () => number;
} & FakesOptions;

export interface RequestLogEntry {
  method: string;
  /** Raw path as on the request line (no query). */
  path: string;
  /** Raw query string without `?`; "" when absent. */
  query: string;
  headers: Record<string, string>;
  /** Injected-clock arrival time. */
  at: number;
}

/** Live, read-only views of the fake's state for assertions: the server's request log and every fake's. */
export type FakeUpstreamState = {
  readonly requests: readonly RequestLogEntry[];
  /** Requests per raw path (query excluded). */
  readonly requestCounts: ReadonlyMap<string, number>;
} & FakesState;

/** The server's own controls; every provider fake adds its own (`FakesControls`). */
export interface FakeUpstreamServer {
  /** e.g. `http://127.0.0.1:41234`; every host of every provider maps to this one origin. */
  url: string;
  port: number;
  /** Ready-made URLs for provider templates. */
  endpoints: FakesEndpoints;
  state: FakeUpstreamState;
  /** Stops the server, ends hanging requests and drops queued notifications. */
  stop(): Promise<void>;
  /** Waits until `condition(state)` holds, re-checked on every state change. */
  waitFor(condition: (state: FakeUpstreamState) => boolean, timeoutMs?: number, description?: string): Promise<void>;
  /** Requests received on this exact raw path (query excluded). */
  requestCount(path: string): number;
}

export type FakeUpstream = FakeUpstreamServer & FakesControls;

/** Where the fakes' state is kept across restarts (the sandbox's data dir): restored at start, saved after requests. */
export interface FakesPersistence {
  saved: Record<string, unknown> | undefined;
  save(state: Record<string, unknown>): void;
}

const DEFAULT_WAIT_MS = 5000;

/** Starts every provider's fake (`@junction/providers/fakes`) on one origin on 127.0.0.1. */
export async function startFakeUpstream(options: FakeUpstreamOptions = {}): Promise<FakeUpstream> {
  return (await serveFakes(options)).fake;
}

/** `startFakeUpstream`, with the sandbox credentials' URLs by provider name (for the sandbox upstream). */
export async function serveFakes(
  options: FakeUpstreamOptions,
  persist?: FakesPersistence,
): Promise<{ fake: FakeUpstream; sandboxCredentials: Record<string, SandboxCredentialUrls> }> {
  const now = options.now ?? (() => Date.now());
  const changes = new StateChanges();
  const requests: RequestLogEntry[] = [];
  const requestCounts = new Map<string, number>();
  const arrived = (ctx: RequestContext) => {
    requests.push({
      method: ctx.method,
      path: ctx.rawPath,
      query: ctx.rawQuery,
      headers: headersObject(ctx.request.headers),
      at: now(),
    });
    requestCounts.set(ctx.rawPath, (requestCounts.get(ctx.rawPath) ?? 0) + 1);
    changes.changed();
  };
  // The fakes need the server's URL, so they are mounted once it listens (no request can come before).
  let serve: (raw: RawRequest) => Promise<Response> = async () => new Response(null, { status: 503 });
  const server = await startRawHttpServer((raw) => serve(raw), { port: options.port ?? 0, hostname: "127.0.0.1" });
  const url = `http://127.0.0.1:${server.port}`;
  const fakes = mountFakes(FAKES, { url, now, changes }, options);
  if (persist?.saved) fakes.restore(persist.saved);
  const hooks = { arrived, notFound: fakes.notFound };
  serve = persist
    ? async (raw) => {
        const res = await dispatch(fakes.routes, raw, hooks);
        persist.save(fakes.save());
        return res;
      }
    : (raw) => dispatch(fakes.routes, raw, hooks);

  const own: object = { requests, requestCounts };
  const state = Object.defineProperties(own, Object.getOwnPropertyDescriptors(fakes.state)) as FakeUpstreamState;
  const serverControls: FakeUpstreamServer = {
    url,
    port: server.port,
    endpoints: fakes.endpoints as FakesEndpoints,
    state,
    async stop() {
      fakes.stop();
      await server.stop();
      persist?.save(fakes.save());
    },
    waitFor(condition, timeoutMs = DEFAULT_WAIT_MS, description = "condition") {
      return changes.waitUntil(
        () => condition(state),
        timeoutMs,
        () => description,
      );
    },
    requestCount: (path) => requestCounts.get(path) ?? 0,
  };
  const fake = Object.assign(fakes.controls as FakesControls, serverControls);
  return { fake, sandboxCredentials: fakes.sandboxCredentials };
}
