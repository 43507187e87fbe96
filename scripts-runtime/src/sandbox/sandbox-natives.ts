import { randomUUID } from "node:crypto";
import type { QuickJSContext, QuickJSDeferredPromise, QuickJSHandle } from "quickjs-emscripten-core";
import type { LogLevel } from "../runtime/run-types.ts";

/** Host calls a script may have waiting at once; more is a runaway loop, not a sync. */
export const MAX_HOST_CALLS_IN_FLIGHT = 64;
/** Largest JSON arguments of one host call. */
export const MAX_HOST_CALL_BYTES = 8 * 1024 * 1024;
/** Timers a script may have pending at once. */
export const MAX_TIMERS = 1000;

const LEVELS: readonly string[] = ["debug", "info", "warn", "error"];

/** What the natives report to the run that owns them. */
export interface NativeEvents {
  hostCall(callId: number, method: string, args: string): void;
  /** false once the log budget is spent. */
  log(level: LogLevel, message: string): boolean;
  /** Something happened that the run loop must look at (a reply arrived, a timer fired). */
  wake(): void;
  /** A regular expression match starts (`source` is its pattern) or ends (null). */
  regex(source: string | null): void;
}

/**
 * The child-side functions the prelude builds the script API on: host calls as QuickJS promises
 * settled when the parent replies, the log sink, ids and timers. Only strings and numbers cross.
 */
export class SandboxNatives {
  private readonly calls = new Map<number, QuickJSDeferredPromise>();
  private readonly timers = new Map<number, ReturnType<typeof setTimeout>>();
  private readonly due: number[] = [];
  private callSeq = 0;

  constructor(
    private readonly ctx: QuickJSContext,
    private readonly events: NativeEvents,
  ) {}

  /** Host calls sent and not yet answered. */
  get inFlight(): number {
    return this.calls.size;
  }

  /** Timers set and not yet fired or cleared (fired ones wait in `takeDue`). */
  get pendingTimers(): number {
    return this.timers.size + this.due.length;
  }

  /** Ids of the timers that fired since the last call. */
  takeDue(): number[] {
    return this.due.splice(0);
  }

  /** The object handed to the prelude. The caller disposes it. */
  build(): QuickJSHandle {
    const ctx = this.ctx;
    const natives = ctx.newObject();
    const add = (name: string, fn: (...args: QuickJSHandle[]) => QuickJSHandle | undefined) => {
      const handle = ctx.newFunction(name, fn);
      ctx.setProp(natives, name, handle);
      handle.dispose();
    };
    add("hostCall", (method, args) => this.hostCall(this.str(method), this.str(args)));
    add("log", (level, message) => {
      const name = this.str(level);
      const open = this.events.log((LEVELS.includes(name) ? name : "info") as LogLevel, this.str(message));
      return open ? ctx.true : ctx.false;
    });
    add("uuid", () => ctx.newString(randomUUID()));
    add("regex", (on, source) => {
      this.events.regex(ctx.getNumber(on as QuickJSHandle) === 1 ? this.str(source) : null);
      return undefined;
    });
    add("setTimer", (id, ms) => {
      this.setTimer(ctx.getNumber(id as QuickJSHandle), ctx.getNumber(ms as QuickJSHandle));
      return undefined;
    });
    add("clearTimer", (id) => {
      const key = ctx.getNumber(id as QuickJSHandle);
      clearTimeout(this.timers.get(key));
      this.timers.delete(key);
      return undefined;
    });
    return natives;
  }

  /** Settles the promise of host call `callId` with the parent's reply (a JSON envelope). */
  reply(callId: number, reply: string): void {
    const deferred = this.calls.get(callId);
    if (!deferred) return;
    this.calls.delete(callId);
    const value = this.ctx.newString(reply);
    deferred.resolve(value);
    value.dispose();
    this.events.wake();
  }

  /** Drops everything pending; called once the run is over, before the context is disposed. */
  dispose(): void {
    for (const deferred of this.calls.values()) deferred.dispose();
    this.calls.clear();
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    this.due.length = 0;
  }

  private hostCall(method: string, args: string): QuickJSHandle {
    if (this.calls.size >= MAX_HOST_CALLS_IN_FLIGHT) {
      const message = `too many script API calls in flight (at most ${MAX_HOST_CALLS_IN_FLIGHT}): await some first`;
      return this.refused(message, 429, "too_many_calls");
    }
    if (args.length > MAX_HOST_CALL_BYTES) {
      return this.refused(
        `the arguments of ${method} are larger than ${MAX_HOST_CALL_BYTES} bytes`,
        413,
        "request_too_large",
      );
    }
    const deferred = this.ctx.newPromise();
    const callId = ++this.callSeq;
    this.calls.set(callId, deferred);
    this.events.hostCall(callId, method, args);
    return deferred.handle;
  }

  /** A call refused in the sandbox: a promise the script sees reject with a ScriptApiError. */
  private refused(message: string, status: number, code: string): QuickJSHandle {
    const deferred = this.ctx.newPromise();
    const reply = this.ctx.newString(
      JSON.stringify({ ok: false, error: { type: "ScriptApiError", message, status, body: null, code } }),
    );
    deferred.resolve(reply);
    reply.dispose();
    const handle = deferred.handle.dup();
    deferred.dispose();
    return handle;
  }

  private setTimer(id: number, ms: number): void {
    if (this.timers.size >= MAX_TIMERS) throw new Error(`too many pending timers (at most ${MAX_TIMERS})`);
    const timer = setTimeout(
      () => {
        this.timers.delete(id);
        this.due.push(id);
        this.events.wake();
      },
      Math.min(ms, 2 ** 31 - 1),
    );
    this.timers.set(id, timer);
  }

  private str(handle: QuickJSHandle | undefined): string {
    if (!handle || this.ctx.typeof(handle) !== "string") throw new Error("expected a string");
    return this.ctx.getString(handle);
  }
}
