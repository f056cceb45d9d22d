/**
 * Analysis benchmark (issue 3): on a generated run log, (a) the analysis
 * path — `loadRun` of the Parquet folder, `goodput()` (overall, by class, by
 * stage, by class × stage) and a 1,000-point e2e SLO curve per class with
 * `sloSweep` — against (b) the same computation as plain-TypeScript loops and
 * (c) a danfojs implementation. The three must agree on a small log before
 * anything is timed. danfo is capped: it runs on growing logs while the next
 * size is projected to fit `--danfo-cap-s`, and larger sizes are extrapolated
 * (labelled). See bench/README.md for the command and results.
 *
 * @module
 */
import assert from "node:assert/strict";
import pl from "nodejs-polars";
import { parseArgs } from "node:util";
import { GATE_ORDER } from "../analysis/classify.ts";
import { goodput, type GoodputResult } from "../analysis/goodput.ts";
import { loadRun } from "../analysis/load_run.ts";
import type { LoadedRun } from "../analysis/loaded_run.ts";
import { classSlo, loadSloPolicy, resolveWindow } from "../analysis/policy.ts";
import { sloSweep } from "../analysis/sweep.ts";
import type { SloPolicy } from "../schema/slo.ts";
import { danfoGoodput, type DanfoResult } from "./_danfo_goodput.ts";
import { generateRunLog } from "./_gen_log.ts";
import { type BenchResult, columnsOf, curveLimits, plainGoodput } from "./_plain_goodput.ts";

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
 * The e2e curve of every class with `sloSweep`. `classify()` keeps only the
 * first failing reason, so a late request that also failed a gate cannot be
 * told apart from its output: the eligible latencies (outcome ok and every
 * required gate true) are selected here with polars expressions.
 */
function polarsCurves(run: LoadedRun, policy: SloPolicy, table: GoodputResult): BenchResult["curves"] {
  const window = resolveWindow(run.manifest.stages, policy.window);
  const inWindow = window.intervals
    .map(([a, b]) => pl.col("scheduled_ms").gtEq(a).and(pl.col("scheduled_ms").lt(b)))
    .reduce((x, y) => x.or(y));
  const classes = table.by_class.map((r) => r.class);
  const required = pl.DataFrame([
    pl.Series("class", classes, pl.Utf8),
    ...GATE_ORDER.map((g) =>
      pl.Series(`_req_${g}`, classes.map((c) => classSlo(policy, c).gates.includes(g)), pl.Bool)
    ),
  ]);
  let gatesOk = pl.lit(true);
  for (const g of GATE_ORDER) gatesOk = gatesOk.and(pl.col(`_req_${g}`).not().or(pl.col(g).fillNull(false)));
  const eligible = run.requests.filter(inWindow)
    .join(required, { on: "class", how: "left" })
    .filter(pl.col("outcome").eq(pl.lit("ok")).and(pl.col("completed_ms").isNotNull()).and(gatesOk))
    .select("class", pl.col("completed_ms").minus(pl.col("scheduled_ms")).alias("e2e_ms"));
  const parts = new Map<string, Float64Array>();
  for (const part of eligible.partitionBy("class")) {
    // No nulls here (completed_ms was filtered non-null): the typed copy is ~50× faster than toArray().
    const e2e = Float64Array.from(part.getColumn("e2e_ms").toTypedArray() as Float64Array);
    parts.set(String(part.getColumn("class").get(0)), e2e);
  }
  const curves: BenchResult["curves"] = {};
  for (const row of table.by_class) {
    const limits = curveLimits(policy, row.class);
    const c = sloSweep(parts.get(row.class) ?? [], limits, {
      denominator: row[policy.denominator],
      measurement_seconds: window.measurement_seconds,
    });
    curves[row.class] = { limit_ms: c.limit_ms, accepted: c.accepted };
  }
  return curves;
}

/** (a): load, goodput table, curves; phase times in ms. */
async function runPolars(dir: string, policy: SloPolicy) {
  const t0 = now();
  const run = await loadRun(dir);
  const t1 = now();
  const table = goodput(run, policy);
  const t2 = now();
  const curves = polarsCurves(run, policy, table);
  const t3 = now();
  return { run, table, curves, load: t1 - t0, goodput: t2 - t1, curves_ms: t3 - t2, total: t3 - t0 };
}

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
async function child(args: string[], timeoutMs: number): Promise<string | null> {
  const flags = ["run", "-A", "--v8-flags=--max-old-space-size=8192,--expose-gc"];
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

const policy = await loadSloPolicy(args.slo);
const tmp = await Deno.makeTempDir({ prefix: "analysis-bench-" });
try {
  if (args["danfo-child"]) await danfoChild(Number(args["danfo-child"]), policy, tmp);
  else await main();
} finally {
  Deno.removeSync(tmp, { recursive: true });
}

async function main(): Promise<void> {
  console.log(`# analysis bench ${new Date().toISOString()} n=${N} reps=${REPS} seed=${SEED} slo=${args.slo}`);
  let t = now();
  const dfd = (await import("danfojs")) as unknown as Danfo;
  console.log(`danfojs import (loads TensorFlow.js; excluded from (c)): ${ms(now() - t)} ms`);

  // Agreement on a small log before any timing.
  const small = generateRunLog(`${tmp}/check`, CHECK_N, SEED);
  const a = await runPolars(small, policy);
  const b = runPlain(a.run, policy);
  const c = runDanfo(dfd, a.run, policy);
  assert.deepEqual(strip(b.result), strip(a.table), "plain table differs from goodput()");
  assert.deepEqual(curveCounts(b.result.curves), curveCounts(a.curves), "plain curves differ from sloSweep");
  assert.deepEqual(c.result.by_class, withoutFailures(a.table.by_class), "danfo by-class table differs");
  assert.deepEqual(curveCounts(c.result.curves), curveCounts(a.curves), "danfo curves differ");
  assert.ok(a.table.overall.accepted > 0 && a.table.overall.accepted < a.table.overall.offered);
  console.log(
    `check n=${CHECK_N}: (a) = (b) on every row and failure count, (a) = (c) on by-class counts/rates; ` +
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
    "\n| rep | (a) load | (a) goodput | (a) curves | (a) total | (b) arrays | (b) loop | (b) total | (b)/(a) | " +
      "peak RSS MB |",
  );
  console.log("| --: | --: | --: | --: | --: | --: | --: | --: | --: | --: |");
  const aCompute: number[] = [];
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) console.log("(no --expose-gc: earlier reps' frames may still be held when a rep starts)");
  for (let rep = 1; rep <= REPS; rep++) {
    // polars frames hold native memory until their JS wrappers are collected: start each rep clean.
    gc?.();
    const pa = await runPolars(big, policy);
    const pb = runPlain(pa.run, policy);
    assert.deepEqual(strip(pb.result), strip(pa.table), "plain table differs from goodput() at full size");
    assert.deepEqual(curveCounts(pb.result.curves), curveCounts(pa.curves), "plain curves differ at full size");
    aCompute.push(pa.goodput + pa.curves_ms);
    console.log(
      `| ${rep} | ${ms(pa.load)} | ${ms(pa.goodput)} | ${ms(pa.curves_ms)} | ${ms(pa.total)} | ${ms(pb.arrays)} | ` +
        `${ms(pb.loop)} | ${ms(pb.total)} | ${(pb.total / (pa.total - pa.load)).toFixed(2)} | ${ms(peakRssMb())} |`,
    );
    if (rep === 1) {
      const r = pa.run;
      console.log(`(rows: requests ${r.requests.height}, attempts ${r.attempts.height}, tools ${r.tools.height})`);
    }
  }
  console.log("((b)/(a) divides (b) by (a) without its load: both start from the loaded frames.)");

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
      ["bench/analysis_bench.ts", "--danfo-child", String(m), "--slo", args.slo],
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
