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
    "danfo-sizes": { type: "string", default: "20000,50000,100000,200000,500000,1000000" },
    "danfo-cap-s": { type: "string", default: "60" },
    slo: { type: "string", default: "data/slo/design-v1.json" },
    seed: { type: "string", default: "1" },
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
    parts.set(
      String(part.getColumn("class").get(0)),
      Float64Array.from(part.getColumn("e2e_ms").toArray() as number[]),
    );
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

const policy = await loadSloPolicy(args.slo);
const tmp = await Deno.makeTempDir({ prefix: "analysis-bench-" });
try {
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
      `${
        Object.keys(a.curves).length
      } curves × 1000 points equal; offered ${a.table.overall.offered}, accepted ${a.table.overall.accepted}`,
  );

  t = now();
  const big = generateRunLog(`${tmp}/big`, N, SEED);
  let bytes = 0;
  for (const e of Deno.readDirSync(big)) bytes += Deno.statSync(`${big}/${e.name}`).size;
  console.log(`generated n=${N} in ${ms(now() - t)} ms (${(bytes / 2 ** 20).toFixed(1)} MB on disk)`);

  console.log(
    "\n| rep | (a) load | (a) goodput | (a) curves | (a) total | (b) arrays | (b) loop | (b) total | (b)/(a) | rows requests / attempts / tools |",
  );
  console.log("| --: | --: | --: | --: | --: | --: | --: | --: | --: | --- |");
  const aTotals: number[] = [];
  for (let rep = 1; rep <= REPS; rep++) {
    const pa = await runPolars(big, policy);
    const pb = runPlain(pa.run, policy);
    assert.deepEqual(strip(pb.result), strip(pa.table), "plain table differs from goodput() at full size");
    assert.deepEqual(curveCounts(pb.result.curves), curveCounts(pa.curves), "plain curves differ at full size");
    aTotals.push(pa.total);
    const r = pa.run;
    console.log(
      `| ${rep} | ${ms(pa.load)} | ${ms(pa.goodput)} | ${ms(pa.curves_ms)} | ${ms(pa.total)} | ${ms(pb.arrays)} | ` +
        `${ms(pb.loop)} | ${ms(pb.total)} | ${(pb.total / (pa.total - pa.load)).toFixed(2)} | ` +
        `${r.requests.height} / ${r.attempts.height} / ${r.tools.height} |`,
    );
  }
  console.log(`peak RSS after (a)+(b): ${peakRssMb().toFixed(0)} MB`);
  console.log("((b)/(a) divides (b) by (a) without its load: both start from the loaded frames.)");

  // danfo: grow n while the next size is projected to fit the cap. Its time grows faster than n, so the
  // projection uses the exponent fitted on the last two sizes (t ∝ n^k), never less than linear.
  console.log("\n| danfo n | (c) total ms | µs / request | (a) goodput+curves ms at this n | (c)/(a) |");
  console.log("| --: | --: | --: | --: | --: |");
  const done: { n: number; ms: number }[] = [];
  const exponent = () => {
    const [p, q] = done.slice(-2);
    return p && q ? Math.max(1, Math.log(q.ms / p.ms) / Math.log(q.n / p.n)) : 1;
  };
  const project = (m: number) => {
    const q = done[done.length - 1]!;
    return q.ms * (m / q.n) ** exponent();
  };
  for (const m of DANFO_SIZES) {
    if (done.length && project(m) > CAP_MS) {
      console.log(`(n=${m} not run: projected ${ms(project(m))} ms > cap ${CAP_MS} ms)`);
      break;
    }
    const dir = m === N ? big : generateRunLog(`${tmp}/d${m}`, m, SEED);
    const pa = await runPolars(dir, policy);
    const pc = runDanfo(dfd, pa.run, policy);
    assert.deepEqual(pc.result.by_class, withoutFailures(pa.table.by_class), `danfo by-class differs at n=${m}`);
    assert.deepEqual(curveCounts(pc.result.curves), curveCounts(pa.curves), `danfo curves differ at n=${m}`);
    const aCompute = pa.goodput + pa.curves_ms;
    console.log(
      `| ${m} | ${ms(pc.total)} | ${(pc.total * 1000 / m).toFixed(1)} | ${ms(aCompute)} | ${
        (pc.total / aCompute).toFixed(1)
      } |`,
    );
    done.push({ n: m, ms: pc.total });
    if (m !== N) Deno.removeSync(dir, { recursive: true });
  }
  const last = done[done.length - 1];
  if (last && last.n < N) {
    const median = [...aTotals].sort((x, y) => x - y)[Math.floor(aTotals.length / 2)]!;
    const linear = (last.ms * N) / last.n;
    const k = exponent();
    console.log(
      `EXTRAPOLATED, not measured: (c) at n=${N} ≈ ${ms(linear)} ms if linear from n=${last.n} (a lower bound), ` +
        `≈ ${ms(project(N))} ms with the fitted t ∝ n^${k.toFixed(2)}; vs (a) median total ${ms(median)} ms → ` +
        `(c)/(a) ≈ ${(linear / median).toFixed(0)} (linear) to ${(project(N) / median).toFixed(0)} (fitted)`,
    );
  }
  console.log(`peak RSS at end: ${peakRssMb().toFixed(0)} MB`);
} finally {
  Deno.removeSync(tmp, { recursive: true });
}
