/**
 * Analysis benchmark (issue 3): on a generated run log, (a) the analysis
 * path — `loadRun` of the Parquet folder, `goodput()` (overall, by class, by
 * stage, by class × stage) and a 1,000-point e2e SLO curve per class with
 * `sloSweep` — and (a′) the same from `scanRun` (lazy scans, only the needed
 * columns read), against (b) the same computation as plain-TypeScript loops
 * and (c) a danfojs implementation. All must agree on a small log before
 * anything is timed, and (a′) = (b) = (a) again at full size. danfo is
 * capped: it runs on growing logs while the next size is projected to fit
 * `--danfo-cap-s`, and larger sizes are extrapolated (labelled). `--scale K`
 * copies the big log into K shards and runs (a) and (a′) each in a child
 * process with a 256 MB V8 heap, reporting peak RSS. See bench/README.md.
 *
 * @module
 */
import assert from "node:assert/strict";
import process from "node:process";
import { parseArgs } from "node:util";
import { goodput, type GoodputResult } from "../analysis/goodput/goodput.ts";
import { loadRun } from "../analysis/run/load_run.ts";
import type { LoadedRun } from "../analysis/run/loaded_run.ts";
import { loadSloPolicy } from "../analysis/goodput/policy.ts";
import { scanRun } from "../analysis/run/scan_run.ts";
import type { ScannedRun } from "../analysis/run/scanned_run.ts";
import type { SloPolicy } from "../schema/slo.ts";
import { danfoGoodput, type DanfoResult } from "./_danfo_goodput.ts";
import { generateRunLog } from "./_gen_log.ts";
import { type BenchResult, columnsOf, plainGoodput } from "./_plain_goodput.ts";
import { polarsCurves } from "./_polars_curves.ts";

const { values: args } = parseArgs({
  args: Deno.args,
  options: {
    n: { type: "string", default: "1000000" },
    reps: { type: "string", default: "3" },
    "check-n": { type: "string", default: "20000" },
    "danfo-sizes": { type: "string", default: "5000,10000,20000,50000,100000,200000,500000,1000000" },
    "danfo-cap-s": { type: "string", default: "60" },
    slo: { type: "string", default: "data/slo/design-v1.json" },
    seed: { type: "string", default: "1" },
    "danfo-child": { type: "string" },
    "skip-danfo": { type: "boolean", default: false },
    scale: { type: "string", default: "0" },
    "scale-child": { type: "string" },
    dir: { type: "string" },
  },
});
const N = Number(args.n), REPS = Number(args.reps), CHECK_N = Number(args["check-n"]);
const CAP_MS = Number(args["danfo-cap-s"]) * 1000, SEED = Number(args.seed);
const DANFO_SIZES = args["danfo-sizes"].split(",").map(Number).filter((m) => m <= N);

const now = () => performance.now();
const ms = (x: number) => x.toFixed(0);
/** Peak resident set of this process so far, MB (VmHWM). */
function peakRssMb(): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(Deno.readTextFileSync("/proc/self/status"));
  return m ? Number(m[1]) / 1024 : NaN;
}

/**
 * Milliseconds that this process's threads (JS and polars) spent runnable but waiting for a CPU, so far: the time the
 * shared machine took from the bench (field 2 of /proc/self/task/<tid>/schedstat; threads that ended are not counted).
 */
function runQueueMs(): number {
  let ns = 0;
  for (const t of Deno.readDirSync("/proc/self/task")) {
    try {
      ns += Number(Deno.readTextFileSync(`/proc/self/task/${t.name}/schedstat`).split(" ")[1]);
    } catch {
      // The thread ended between the listing and the read: its wait is lost, not an error.
      continue;
    }
  }
  return ns / 1e6;
}

/** Milliseconds of CPU (all threads of this process) spent since `from`. */
const cpuSince = (from: ReturnType<typeof process.cpuUsage>) => {
  const u = process.cpuUsage(from);
  return (u.user + u.system) / 1000;
};

/** Times open → goodput table → curves: phase times in ms, the CPU time of the whole and its run-queue wait. */
async function timed<R extends LoadedRun | ScannedRun>(
  open: () => Promise<R>,
  curvesOf: (run: R, table: GoodputResult) => ReturnType<typeof polarsCurves>,
  policy: SloPolicy,
) {
  const cpu = process.cpuUsage(), rq = runQueueMs();
  const t0 = now();
  const run = await open();
  const t1 = now();
  const table = goodput(run, policy);
  const t2 = now();
  const curves = curvesOf(run, table);
  const t3 = now();
  return {
    run,
    table,
    curves,
    load: t1 - t0,
    goodput: t2 - t1,
    curves_ms: t3 - t2,
    total: t3 - t0,
    cpu: cpuSince(cpu),
    wait: runQueueMs() - rq,
  };
}

/** (a): load, goodput table, curves. */
const runPolars = (dir: string, policy: SloPolicy) =>
  timed(() => loadRun(dir), (run, table) => polarsCurves(run.requests.lazy(), run.manifest, policy, table), policy);

/** (a′): the same from lazy scans; goodput and curves on polars' streaming engine. */
const runLazy = (dir: string, policy: SloPolicy) =>
  timed(() => scanRun(dir), (run, table) => polarsCurves(run.requests, run.manifest, policy, table, true), policy);

/** (b): arrays from the loaded frames, then the loops. */
function runPlain(run: LoadedRun, policy: SloPolicy) {
  const t0 = now();
  const cols = columnsOf(run);
  const t1 = now();
  const result = plainGoodput(run, cols, policy);
  const t2 = now();
  return { result, cols, arrays: t1 - t0, loop: t2 - t1, total: t2 - t0 };
}

type Danfo = Parameters<typeof danfoGoodput>[0];
/** (c): arrays from the loaded frames, then danfo. */
function runDanfo(dfd: Danfo, run: LoadedRun, policy: SloPolicy): { result: DanfoResult; total: number } {
  const t0 = now();
  const result = danfoGoodput(dfd, run, columnsOf(run), policy);
  return { result, total: now() - t0 };
}

const strip = (t: GoodputResult | BenchResult) => ({
  overall: t.overall,
  by_class: t.by_class,
  by_stage: t.by_stage,
  by_class_stage: t.by_class_stage,
});
const withoutFailures = (rows: GoodputResult["by_class"]) => rows.map(({ failures: _f, ...r }) => r);
const curveCounts = (c: BenchResult["curves"]) =>
  Object.fromEntries(Object.entries(c).map(([k, v]) => [k, [...v.accepted]]));

/** Runs `deno run <args>` as a child process, killed after `timeoutMs`; null when killed. */
async function child(args: string[], timeoutMs: number, heapMb = 8192): Promise<string | null> {
  const flags = ["run", "-A", `--v8-flags=--max-old-space-size=${heapMb},--expose-gc`];
  const cmd = new Deno.Command(Deno.execPath(), { args: [...flags, ...args], stdout: "piped", stderr: "piped" });
  const proc = cmd.spawn();
  const timer = setTimeout(() => proc.kill("SIGKILL"), timeoutMs);
  const out = await proc.output();
  clearTimeout(timer);
  if (out.signal === "SIGKILL") return null;
  if (!out.success) throw new Error(`child ${args.join(" ")} failed:\n${new TextDecoder().decode(out.stderr)}`);
  return new TextDecoder().decode(out.stdout);
}

/** Child mode: (a) and (c) on a log of `m` requests, checked equal; prints one JSON line. */
async function danfoChild(m: number, policy: SloPolicy, tmp: string): Promise<void> {
  const dfd = (await import("danfojs")) as unknown as Danfo;
  const pa = await runPolars(generateRunLog(`${tmp}/d${m}`, m, SEED), policy);
  const pc = runDanfo(dfd, pa.run, policy);
  assert.deepEqual(pc.result.by_class, withoutFailures(pa.table.by_class), `danfo by-class differs at n=${m}`);
  assert.deepEqual(curveCounts(pc.result.curves), curveCounts(pa.curves), `danfo curves differ at n=${m}`);
  console.log(JSON.stringify({ n: m, c_ms: pc.total, a_ms: pa.goodput + pa.curves_ms, rss_mb: peakRssMb() }));
}

/** Child mode: (a) or (a′) on the run in `dir`; prints one JSON line with times, peak RSS and the table. */
async function scaleChild(mode: string, dir: string, policy: SloPolicy): Promise<void> {
  const r = mode === "lazy" ? await runLazy(dir, policy) : await runPolars(dir, policy);
  const { load, goodput: g, curves_ms, total, cpu, wait } = r;
  const table = strip(r.table);
  console.log(JSON.stringify({ load, goodput: g, curves_ms, total, cpu, wait, rss_mb: peakRssMb(), table }));
}

const policy = await loadSloPolicy(args.slo);
// A danfo child writes inside its parent's folder (--dir), so a child killed at the cap leaves nothing behind.
const tmp = await Deno.makeTempDir({
  prefix: "analysis-bench-",
  ...(args["danfo-child"] && args.dir ? { dir: args.dir } : {}),
});
try {
  if (args["danfo-child"]) await danfoChild(Number(args["danfo-child"]), policy, tmp);
  else if (args["scale-child"]) await scaleChild(args["scale-child"], args.dir!, policy);
  else await main();
} finally {
  Deno.removeSync(tmp, { recursive: true });
}

async function main(): Promise<void> {
  console.log(`# analysis bench ${new Date().toISOString()} n=${N} reps=${REPS} seed=${SEED} slo=${args.slo}`);
  let t = now();
  const dfd = args["skip-danfo"] ? null : (await import("danfojs")) as unknown as Danfo;
  if (dfd) console.log(`danfojs import (loads TensorFlow.js; excluded from (c)): ${ms(now() - t)} ms`);

  // Agreement on a small log before any timing.
  const small = generateRunLog(`${tmp}/check`, CHECK_N, SEED);
  const a = await runPolars(small, policy);
  const lazy = await runLazy(small, policy);
  const b = runPlain(a.run, policy);
  assert.deepEqual(strip(b.result), strip(a.table), "plain table differs from goodput()");
  assert.deepEqual(curveCounts(b.result.curves), curveCounts(a.curves), "plain curves differ from sloSweep");
  assert.deepEqual(strip(lazy.table), strip(a.table), "scanRun table differs from loadRun table");
  assert.deepEqual(curveCounts(lazy.curves), curveCounts(a.curves), "scanRun curves differ");
  if (dfd) {
    const c = runDanfo(dfd, a.run, policy);
    assert.deepEqual(c.result.by_class, withoutFailures(a.table.by_class), "danfo by-class table differs");
    assert.deepEqual(curveCounts(c.result.curves), curveCounts(a.curves), "danfo curves differ");
  }
  assert.ok(a.table.overall.accepted > 0 && a.table.overall.accepted < a.table.overall.offered);
  console.log(
    `check n=${CHECK_N}: (a) = (a′) = (b) on every row and failure count` +
      `${dfd ? ", (a) = (c) on by-class counts/rates" : ""}; ` +
      `${Object.keys(a.curves).length} curves × 1000 points equal; ` +
      `offered ${a.table.overall.offered}, accepted ${a.table.overall.accepted}; peak RSS ${ms(peakRssMb())} MB`,
  );

  // The big log is written by a child process so that its arrays do not count in this process's RSS.
  t = now();
  const big = `${tmp}/big`;
  await child(["bench/_gen_log.ts", big, String(N), String(SEED)], 600_000);
  let bytes = 0;
  for (const e of Deno.readDirSync(big)) bytes += Deno.statSync(`${big}/${e.name}`).size;
  console.log(`generated n=${N} in ${ms(now() - t)} ms (child process; ${(bytes / 2 ** 20).toFixed(1)} MB on disk)`);

  console.log(
    "\n| rep | (a) load | (a) goodput | (a) curves | **(a) total** | (a) CPU | (a) wait | (a′) scan | (a′) goodput | " +
      "(a′) curves | **(a′) total** | (a′) CPU | (a′) wait | (b) arrays | (b) loop | (b) total | (b)/(a) | peak RSS MB |",
  );
  console.log(
    "| --: | --: | --: | --: | --: | --: | --: | --: | --: | --: | --: | --: | --: | --: | --: | --: | --: | --: |",
  );
  const aCompute: number[] = [];
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) console.log("(no --expose-gc: earlier reps' frames may still be held when a rep starts)");
  for (let rep = 1; rep <= REPS; rep++) {
    // polars frames hold native memory until their JS wrappers are collected: start each rep clean.
    gc?.();
    const lz = await runLazy(big, policy);
    gc?.();
    const pa = await runPolars(big, policy);
    const pb = runPlain(pa.run, policy);
    assert.deepEqual(strip(pb.result), strip(pa.table), "plain table differs from goodput() at full size");
    assert.deepEqual(curveCounts(pb.result.curves), curveCounts(pa.curves), "plain curves differ at full size");
    assert.deepEqual(strip(lz.table), strip(pa.table), "scanRun table differs from loadRun table at full size");
    assert.deepEqual(curveCounts(lz.curves), curveCounts(pa.curves), "scanRun curves differ at full size");
    aCompute.push(pa.goodput + pa.curves_ms);
    const f = (x: { load: number; goodput: number; curves_ms: number; total: number; cpu: number; wait: number }) =>
      `${ms(x.load)} | ${ms(x.goodput)} | ${ms(x.curves_ms)} | **${ms(x.total)}** | ${ms(x.cpu)} | ${ms(x.wait)}`;
    console.log(
      `| ${rep} | ${f(pa)} | ${f(lz)} | ${ms(pb.arrays)} | ${ms(pb.loop)} | ${ms(pb.total)} | ` +
        `${(pb.total / (pa.total - pa.load)).toFixed(2)} | ${ms(peakRssMb())} |`,
    );
    if (rep === 1) {
      const r = pa.run;
      console.log(`(rows: requests ${r.requests.height}, attempts ${r.attempts.height}, tools ${r.tools.height})`);
    }
  }
  console.log(
    "((b)/(a) divides (b) by (a) without its load: both start from the loaded frames. CPU = user + system time of " +
      "all threads; wait = time the process's threads were runnable but had no CPU (the shared machine's share).)",
  );

  if (Number(args.scale) > 0) await scale(big, Number(args.scale));
  if (dfd) await danfoLadder(aCompute);
}

/**
 * Larger than memory: the big log copied into `k` shards, then (a) and (a′) each in a child process with a 256 MB
 * V8 heap; peak RSS shows what each holds (polars memory is native, outside the V8 heap).
 */
async function scale(big: string, k: number): Promise<void> {
  let t = now();
  const root = `${tmp}/scale`;
  await child(["bench/_gen_log.ts", "--replicate", big, root, String(k)], 600_000);
  let bytes = 0;
  for (const d of Deno.readDirSync(root)) {
    for (const e of Deno.readDirSync(`${root}/${d.name}`)) bytes += Deno.statSync(`${root}/${d.name}/${e.name}`).size;
  }
  console.log(
    `\nscale: ${k} shards × n=${N} written in ${ms(now() - t)} ms (${(bytes / 2 ** 20).toFixed(0)} MB of Parquet)`,
  );
  console.log(
    "\n| path | shards | offered in window | load/scan ms | goodput ms | curves ms | total ms | CPU ms | wait ms | peak RSS MB |",
  );
  console.log("| --- | --: | --: | --: | --: | --: | --: | --: | --: | --: |");
  type Out = {
    load: number;
    goodput: number;
    curves_ms: number;
    total: number;
    cpu: number;
    wait: number;
    rss_mb: number;
  };
  const results: Record<string, Out & { table: unknown }> = {};
  for (const mode of ["lazy", "eager"]) {
    t = now();
    const out = await child(
      ["bench/analysis_bench.ts", "--scale-child", mode, "--dir", root, "--slo", args.slo],
      600_000,
      256,
    );
    if (out === null) throw new Error(`scale child ${mode} timed out`);
    const r = JSON.parse(out.trim().split("\n").pop()!) as Out & { table: ReturnType<typeof strip> };
    results[mode] = r;
    const name = mode === "lazy" ? "(a′) scanRun, streaming" : "(a) loadRun, in memory";
    console.log(
      `| ${name} | ${k} | ${r.table.overall.offered} | ${ms(r.load)} | ${ms(r.goodput)} | ${ms(r.curves_ms)} | ` +
        `${ms(r.total)} | ${ms(r.cpu)} | ${ms(r.wait)} | ${ms(r.rss_mb)} |`,
    );
  }
  assert.deepEqual(results.lazy!.table, results.eager!.table, "scale: scanRun and loadRun tables differ");
  console.log("(both children: --max-old-space-size=256; the two tables are equal)");
}

/** danfo, each size in a child process killed at the cap; then the extrapolation to n. */
async function danfoLadder(aCompute: number[]): Promise<void> {
  // danfo, each size in a child process killed at the cap. Its time grows faster than n, so the next size
  // is skipped when the exponent fitted on the last two sizes (t ∝ n^k, k ≥ 1) projects it past the cap.
  console.log("\n| danfo n | (c) ms | µs / request | (a) goodput+curves ms, same n | (c)/(a) | child peak RSS MB |");
  console.log("| --: | --: | --: | --: | --: | --: |");
  const done: { n: number; ms: number }[] = [];
  const exponent = () => {
    const [p, q] = done.slice(-2);
    return p && q ? Math.max(1, Math.log(q.ms / p.ms) / Math.log(q.n / p.n)) : 1;
  };
  const project = (m: number) => done[done.length - 1]!.ms * (m / done[done.length - 1]!.n) ** exponent();
  for (const m of DANFO_SIZES) {
    if (done.length && project(m) > CAP_MS) {
      console.log(`(n=${m} not run: projected ${ms(project(m))} ms > cap ${CAP_MS} ms)`);
      break;
    }
    // The cap bounds danfo's own time; the allowance covers the child's start, import, generation and (a).
    const out = await child(
      ["bench/analysis_bench.ts", "--danfo-child", String(m), "--dir", tmp, "--slo", args.slo],
      CAP_MS + 20_000,
    );
    if (out === null) {
      console.log(`(n=${m} killed at the cap: > ${CAP_MS} ms)`);
      break;
    }
    const r = JSON.parse(out.trim().split("\n").pop()!) as { n: number; c_ms: number; a_ms: number; rss_mb: number };
    const perRequest = (r.c_ms * 1000 / m).toFixed(1), ratio = (r.c_ms / r.a_ms).toFixed(1);
    console.log(`| ${m} | ${ms(r.c_ms)} | ${perRequest} | ${ms(r.a_ms)} | ${ratio} | ${ms(r.rss_mb)} |`);
    done.push({ n: m, ms: r.c_ms });
  }
  const last = done[done.length - 1];
  if (last && last.n < N) {
    const median = [...aCompute].sort((x, y) => x - y)[Math.floor(aCompute.length / 2)]!;
    const linear = (last.ms * N) / last.n;
    const fitted = project(N);
    console.log(
      `EXTRAPOLATED, not measured: (c) at n=${N} ≈ ${ms(linear)} ms if linear from n=${last.n} (a lower bound), ` +
        `≈ ${ms(fitted)} ms with the fitted t ∝ n^${exponent().toFixed(2)}.`,
    );
    console.log(
      `vs (a) goodput+curves median ${ms(median)} ms: (c)/(a) ≈ ${(linear / median).toFixed(0)} (linear) ` +
        `to ${(fitted / median).toFixed(0)} (fitted)`,
    );
  }
}
