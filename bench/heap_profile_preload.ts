/**
 * Where a whole Deno process allocates, for the runner benches: given to `deno run --preload`, this module starts V8's
 * sampling heap profiler through `node:inspector` before the main module loads, keeping the objects that the young and
 * the old generation's collections freed (`includeObjectsCollectedByMinorGC`/`…MajorGC`), so the profile counts every
 * allocation sampled, garbage included, not only what is still live. It writes the profile (Chrome DevTools'
 * `.heapprofile` format: a tree of call frames, each with the bytes sampled there) when the process calls `Deno.exit`,
 * as the runner CLI does at its end. Main thread only. Read it for shares: each sample stands for about
 * `HEAP_PROFILE_BYTES` bytes allocated (default 32,768).
 *
 * ```sh
 * HEAP_PROFILE=/tmp/run.heapprofile npx deno run -A --preload bench/heap_profile_preload.ts \
 *   runner/cli/run.ts --workload ... --plan ... --target ... --out ...
 * ```
 *
 * @module
 */
import { Session } from "node:inspector";
import { writeProfileAtExit } from "./_profile_at_exit.ts";

const out = Deno.env.get("HEAP_PROFILE") ?? "heap.heapprofile";
const session = new Session();
session.connect();
session.post("HeapProfiler.enable", () => {});
session.post("HeapProfiler.startSampling", {
  samplingInterval: Number(Deno.env.get("HEAP_PROFILE_BYTES") ?? "32768"),
  includeObjectsCollectedByMajorGC: true,
  includeObjectsCollectedByMinorGC: true,
}, () => {});
writeProfileAtExit(session, "HeapProfiler.stopSampling", out, "heap_profile_preload");
