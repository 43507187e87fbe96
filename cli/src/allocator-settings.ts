import { dlopen, FFIType, type Pointer, ptr } from "bun:ffi";

/**
 * The settings of Bun's allocator (mimalloc) a long-running Junction process starts with, unless the
 * environment sets them: freed blocks inside pages still in use are not given back to the OS one hole at
 * a time (`PURGE_HOLES`), and freed pages are given back after 1 s rather than 0.1 s (`PURGE_DELAY`,
 * mimalloc's own default). Under load, Bun's defaults spend a few µs of CPU per proxied request in
 * `madvise` and in the page faults that follow it; the cost is ~10–15 MiB more resident memory under
 * load, level over time (docs/benchmarks.md, "Proxy hot path (sixteenth session)").
 */
export const ALLOCATOR_SETTINGS: Readonly<Record<string, string>> = {
  MIMALLOC_PURGE_HOLES: "0",
  MIMALLOC_PURGE_DELAY: "1000",
};

type Env = Record<string, string | undefined>;

/** `env` with the allocator settings it lacks, or undefined when it sets them all (an operator's win). */
export function withAllocatorSettings(env: Env): Record<string, string> | undefined {
  if (env.MIMALLOC_PURGE_HOLES !== undefined && env.MIMALLOC_PURGE_DELAY !== undefined) return undefined;
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) if (value !== undefined) out[name] = value;
  out.MIMALLOC_PURGE_HOLES = env.MIMALLOC_PURGE_HOLES ?? (ALLOCATOR_SETTINGS.MIMALLOC_PURGE_HOLES as string);
  out.MIMALLOC_PURGE_DELAY = env.MIMALLOC_PURGE_DELAY ?? (ALLOCATOR_SETTINGS.MIMALLOC_PURGE_DELAY as string);
  return out;
}

/**
 * Replaces this process with the same command under the allocator settings (same pid, arguments and
 * open files), when the environment lacks any: mimalloc reads them once, at exec. Called before the
 * command's modules load. Where `execve` cannot be called (no glibc), or fails, this process goes on
 * with Bun's defaults.
 */
export function execWithAllocatorSettings(env: Env = process.env): void {
  const next = withAllocatorSettings(env);
  if (next === undefined || process.platform !== "linux") return;
  let execve: (path: Pointer, argv: Pointer, envp: Pointer) => number;
  try {
    execve = dlopen("libc.so.6", {
      execve: { args: [FFIType.ptr, FFIType.ptr, FFIType.ptr], returns: FFIType.i32 },
    }).symbols.execve;
  } catch {
    return;
  }
  // Every buffer whose address is handed to execve stays referenced from `kept` until the call returns,
  // so a collection between taking an address and the call cannot free it.
  const kept: ArrayBufferView[] = [];
  const cString = (s: string) => {
    const b = Buffer.from(`${s}\0`);
    kept.push(b);
    return b;
  };
  const list = (items: string[]) => {
    const pointers = new BigUint64Array(items.length + 1);
    kept.push(pointers);
    items.forEach((s, i) => {
      pointers[i] = BigInt(ptr(cString(s)));
    });
    return pointers;
  };
  const path = cString(process.execPath);
  const argv = list([process.execPath, ...process.execArgv, ...process.argv.slice(1)]);
  const envp = list(Object.entries(next).map(([name, value]) => `${name}=${value}`));
  // Returns only on failure (-1): this process then goes on with Bun's defaults.
  execve(ptr(path), ptr(argv), ptr(envp));
  kept.length = 0;
}
