/**
 * A V8 CPU profile of a whole Deno process, for the runner benches: Deno 2.9 has no `--cpu-prof` (neither a `deno
 * run` flag nor a V8 flag it accepts), so this module, given to `deno run --preload`, starts V8's sampling profiler
 * through `node:inspector` before the main module loads and writes the profile (Chrome DevTools' `.cpuprofile`
 * format) when the process calls `Deno.exit`, as the runner CLI does at its end. Main thread only (not the worker
 * threads, not V8's compiler and GC helper threads); the profiler itself adds CPU, so read it for shares, and measure
 * a change with `bench/runner_bench.ts`.
 *
 * ```sh
 * CPU_PROFILE=/tmp/run.cpuprofile CPU_PROFILE_US=200 npx deno run -A --preload bench/cpu_profile_preload.ts \
 *   runner/cli/run.ts --workload ... --plan ... --target ... --out ...
 * ```
 *
 * @module
 */
import { Session } from "node:inspector";
import { writeProfileAtExit } from "./_profile_at_exit.ts";

const out = Deno.env.get("CPU_PROFILE") ?? "cpu.cpuprofile";
const session = new Session();
session.connect();
session.post("Profiler.enable", () => {});
session.post("Profiler.setSamplingInterval", { interval: Number(Deno.env.get("CPU_PROFILE_US") ?? "200") }, () => {});
session.post("Profiler.start", () => {});
writeProfileAtExit(session, "Profiler.stop", out, "cpu_profile_preload");
