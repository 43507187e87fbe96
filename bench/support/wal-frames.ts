import { Database } from "bun:sqlite";
import { closeSync, fstatSync, openSync, readSync } from "node:fs";

/**
 * Counts the pages a workload writes to a SQLite file in WAL mode, exactly, and which B-tree each belongs
 * to: `hold()` opens a read transaction on a second connection, so that no checkpoint can restart the WAL
 * and every frame written after it stays in the file; `count()` reads the frames appended since (each
 * frame's header names its page, and a commit frame the database's size) and maps each page to its table
 * or index through the `dbstat` virtual table. A diagnostic for benchmarks (how many pages a notification
 * writes), not for production.
 */
export class WalFrames {
  private readonly reader: Database;

  constructor(private readonly path: string) {
    this.reader = new Database(path, { readonly: true });
  }

  /**
   * Empties the WAL (a checkpoint that truncates it: call it while nothing writes), then holds checkpoints
   * off from now on, so that every frame written after it is counted.
   */
  hold(): void {
    const writer = new Database(this.path);
    const [row] = writer.query<{ busy: number }, []>("PRAGMA wal_checkpoint(TRUNCATE)").all();
    writer.close();
    if (row?.busy !== 0) throw new Error("the WAL could not be emptied: something was writing");
    this.reader.exec("BEGIN");
    this.reader.query("SELECT COUNT(*) FROM sqlite_schema").get();
  }

  /** The frames appended since `hold()`: in all, commit frames, and per B-tree (busiest first). */
  count(): { frames: number; commits: number; byTree: [string, number][] } {
    const pages = this.framePages();
    this.reader.exec("COMMIT");
    const owner = new Map<number, string>();
    const stat = new Database(this.path, { readonly: true });
    for (const row of stat.query<{ name: string; pageno: number }, []>("SELECT name, pageno FROM dbstat").all()) {
      owner.set(row.pageno, row.name);
    }
    stat.close();
    const byTree = new Map<string, number>();
    for (const page of pages.numbers) {
      const name = owner.get(page) ?? "(free or new)";
      byTree.set(name, (byTree.get(name) ?? 0) + 1);
    }
    return {
      frames: pages.numbers.length,
      commits: pages.commits,
      byTree: [...byTree].sort((a, b) => b[1] - a[1]),
    };
  }

  close(): void {
    this.reader.close();
  }

  private framePages(): { numbers: number[]; commits: number } {
    const fd = openSync(`${this.path}-wal`, "r");
    try {
      const header = Buffer.alloc(32);
      readSync(fd, header, 0, 32, 0);
      const pageSize = header.readUInt32BE(8);
      const frameSize = 24 + pageSize;
      const end = fstatSync(fd).size;
      const numbers: number[] = [];
      let commits = 0;
      const frame = Buffer.alloc(24);
      for (let offset = 32; offset + frameSize <= end; offset += frameSize) {
        readSync(fd, frame, 0, 24, offset);
        // A frame of an older generation of the file (its salts differ) ends the log.
        if (frame.readUInt32BE(8) !== header.readUInt32BE(16) || frame.readUInt32BE(12) !== header.readUInt32BE(20))
          break;
        numbers.push(frame.readUInt32BE(0));
        if (frame.readUInt32BE(4) !== 0) commits++;
      }
      return { numbers, commits };
    } finally {
      closeSync(fd);
    }
  }
}
