import { dlopen, FFIType, ptr } from "bun:ffi";

/**
 * The calling thread's CPU time in ms (Linux: clock_gettime(CLOCK_THREAD_CPUTIME_ID)), for diagnostics
 * that must not count the other threads (SQLite's writer thread, the collector) or time descheduled on a
 * loaded machine, as process CPU and wall time do.
 */
const CLOCK_THREAD_CPUTIME_ID = 3;
const libc = dlopen("libc.so.6", { clock_gettime: { args: [FFIType.i32, FFIType.ptr], returns: FFIType.i32 } });
const spec = new BigInt64Array(2);
const specPtr = ptr(spec);

export function threadCpuMs(): number {
  libc.symbols.clock_gettime(CLOCK_THREAD_CPUTIME_ID, specPtr);
  return Number(spec[0]) * 1000 + Number(spec[1]) / 1e6;
}
