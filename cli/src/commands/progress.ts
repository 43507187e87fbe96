import type { CommandIo } from "./command-kit.ts";

/**
 * Progress of a bulk operation on stderr, one line per item (`[3/40] ...`), so stdout keeps only results;
 * a final line counts what succeeded and failed.
 */
export class Progress {
  private done = 0;
  private failed = 0;

  constructor(
    private readonly io: CommandIo,
    private readonly total: number,
    private readonly verb: string,
  ) {
    if (total > 1) io.err(`${verb} ${total} items`);
  }

  ok(line: string): void {
    this.done++;
    if (this.total > 1) this.io.err(`[${this.done + this.failed}/${this.total}] ${line}`);
  }

  fail(line: string): void {
    this.failed++;
    this.io.err(`[${this.done + this.failed}/${this.total}] failed: ${line}`);
  }

  /** The summary line (for more than one item); true when every item succeeded. */
  finish(): boolean {
    if (this.total > 1) this.io.err(`${this.verb}: ${this.done} done, ${this.failed} failed`);
    return this.failed === 0;
  }
}
