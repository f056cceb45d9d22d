/**
 * For the profiling preloads (bench/cpu_profile_preload.ts, bench/heap_profile_preload.ts): makes `Deno.exit` first
 * stop the profiler with `stop` (an inspector method that answers `{ profile }`) and write the profile to `out` as JSON,
 * then exit. The runner CLI ends with `Deno.exit`, so its whole life is profiled.
 *
 * @module
 */
import type { Session } from "node:inspector";

/** Wraps `Deno.exit` so that it writes the profile that `session.post(stop)` returns to `out` before exiting. */
export function writeProfileAtExit(session: Session, stop: string, out: string, name: string): void {
  const exit = Deno.exit;
  Object.assign(Deno, {
    exit(code?: number): never {
      session.post(stop, (err: Error | null, r: { profile: unknown }) => {
        if (err) console.error(`${name}: ${err.message}`);
        else Deno.writeTextFileSync(out, JSON.stringify(r.profile));
        exit(code);
      });
      // Deno.exit never returns: hold the caller until the profile is written and the process exits.
      return undefined as never;
    },
  });
}
