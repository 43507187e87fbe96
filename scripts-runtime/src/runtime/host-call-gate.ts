/** How much of the host one run's script API calls may hold at once. */
export interface HostCallLimits {
  /** Calls served at once; later ones wait in line (the sandbox allows 64 in flight). */
  maxConcurrent: number;
  /** JSON bytes of the arguments of calls waiting or being served. */
  maxBytesInFlight: number;
}

export const DEFAULT_HOST_CALL_LIMITS: HostCallLimits = { maxConcurrent: 4, maxBytesInFlight: 16 * 1024 * 1024 };

/** What `enter` answers: a slot (give it back with `leave`), or why the call is refused. */
export type Admission = { admitted: true } | { admitted: false; message: string };

/**
 * The host side of one run's script API calls: at most `maxConcurrent` are
 * served at once and the rest wait in line, and the bytes they hold are capped. A script asking for
 * its metadata thousands of times at once thus holds a few replies at a time in the host, not all.
 */
export class HostCallGate {
  private active = 0;
  private bytes = 0;
  private readonly line: Array<() => void> = [];

  constructor(private readonly limits: HostCallLimits) {}

  /** Waits for a slot for a call whose arguments are `argBytes` long, or refuses it at once. */
  async enter(argBytes: number): Promise<Admission> {
    if (this.bytes + argBytes > this.limits.maxBytesInFlight) {
      return {
        admitted: false,
        message: `the run's script API calls hold more than ${this.limits.maxBytesInFlight} bytes; await some first`,
      };
    }
    this.bytes += argBytes;
    if (this.active >= this.limits.maxConcurrent) await new Promise<void>((resolve) => this.line.push(resolve));
    else this.active++;
    return { admitted: true };
  }

  /** Gives back a slot; `argBytes` as given to `enter`. */
  leave(argBytes: number): void {
    this.bytes -= argBytes;
    const next = this.line.shift();
    // The slot passes to the next in line as it is.
    if (next) next();
    else this.active--;
  }

  /** Calls being served, and waiting. */
  get load(): { active: number; waiting: number; bytes: number } {
    return { active: this.active, waiting: this.line.length, bytes: this.bytes };
  }
}
