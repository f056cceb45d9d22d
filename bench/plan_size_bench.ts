/**
 * Memory per planned request: what justifies the plan-size bound (runner/plans/plan_size.ts). For each size and
 * process, a fresh process builds the schedule of a one-stage plan on the design-v1 workload (as `deno task plan`
 * and `deno task run` do), then hashes its schedule.csv chunk by chunk. It reports the live heap after the build
 * (after a full GC) and the peak RSS (Linux VmHWM), each also per request.
 *
 *   deno run -A bench/plan_size_bench.ts [--sizes 100000,1000000,2000000] [--processes constant,poisson]
 *
 * Sends nothing; at most max(sizes) ≤ 10,000,000 arrivals per child process.
 * @module
 */
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const { values: v } = parseArgs({
  args: Deno.args,
  options: {
    sizes: { type: "string", default: "100000,1000000,2000000" },
    processes: { type: "string", default: "constant,poisson" },
    child: { type: "string" },
  },
});

/** Peak resident set of this process so far (bytes), from /proc/self/status. */
function peakRss(): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(Deno.readTextFileSync("/proc/self/status"));
  return m ? Number(m[1]) * 1024 : NaN;
}

if (v.child) {
  const [process, size] = v.child.split(":") as [string, string];
  const { buildSchedule, scheduleSha256 } = await import("../runner/schedule.ts");
  const { loadWorkload } = await import("../schema/workload_file.ts");
  const { PlanSpec } = await import("../schema/plan.ts");
  const { workload } = await loadWorkload(`${ROOT}data/workloads/design-v1`);
  // 100 s at size/100 req/s: `size` arrivals expected.
  const spec = PlanSpec.parse({ name: "b", arrivals: { process, rate_rps: Number(size) / 100, duration_s: 100 } });
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const heap0 = Deno.memoryUsage().heapUsed;
  const t0 = performance.now();
  const built = await buildSchedule(spec, workload, { planDir: "." });
  const buildMs = performance.now() - t0;
  gc?.();
  const heapBuilt = Deno.memoryUsage().heapUsed - heap0;
  const t1 = performance.now();
  await scheduleSha256(built.entries);
  const shaMs = performance.now() - t1;
  console.log(JSON.stringify({
    n: built.entries.length,
    heapBuilt,
    peakRss: peakRss(),
    buildMs,
    shaMs,
  }));
} else {
  const sizes = v.sizes!.split(",").map(Number);
  if (sizes.some((n) => !(n > 0 && n <= 10_000_000))) {
    console.error("plan_size_bench: --sizes must be in 1..10000000");
    Deno.exit(2);
  }
  console.log(
    "| process  |      requests | live heap after build (MB) | B/request | peak RSS (MB) | B/request | build ms | sha256 ms |",
  );
  console.log(
    "| -------- | ------------: | -------------------------: | --------: | ------------: | --------: | -------: | --------: |",
  );
  for (const process of v.processes!.split(",")) {
    for (const size of sizes) {
      const out = await new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", "--v8-flags=--expose-gc", fileURLToPath(import.meta.url), "--child", `${process}:${size}`],
        stdout: "piped",
        stderr: "inherit",
      }).output();
      if (!out.success) throw new Error(`child ${process}:${size} failed`);
      const r = JSON.parse(new TextDecoder().decode(out.stdout));
      const mb = (b: number) => (b / 2 ** 20).toFixed(0);
      console.log(
        `| ${process.padEnd(8)} | ${String(r.n).padStart(13)} | ${mb(r.heapBuilt).padStart(26)} | ${
          (r.heapBuilt / r.n).toFixed(0).padStart(9)
        } | ${mb(r.peakRss).padStart(13)} | ${(r.peakRss / r.n).toFixed(0).padStart(9)} | ${
          r.buildMs.toFixed(0).padStart(8)
        } | ${r.shaMs.toFixed(0).padStart(9)} |`,
      );
    }
  }
}
