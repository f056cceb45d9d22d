/**
 * CPU time of this process's main thread (where the app's JavaScript runs), from Linux's
 * `/proc/self/task/<pid>/schedstat` (its first field: ns spent running); null where that file does not exist. The
 * other threads' time (a writer thread, the runtime's own: the garbage collector's helpers, I/O) is the process's
 * (`process.cpuUsage()`, which keeps the time of threads that ended) minus this.
 *
 * @module
 */

/** µs the main thread ran since it started; null without /proc. */
export function mainThreadCpuUs(): number | null {
  try {
    return Number(Deno.readTextFileSync(`/proc/self/task/${Deno.pid}/schedstat`).split(" ")[0]) / 1000;
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return null;
    throw e;
  }
}
