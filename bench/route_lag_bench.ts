/**
 * The send lag of a real run, run to run: the demo's route run (scripts/_route_runs.ts: design-v1 over
 * `data/plans/routes-compare.json`, 3 → 14 req/s for 24 s, against freshly started simulators on loopback) repeated
 * `--runs` times, each in a fresh process, and for each its p99 and maximum send lag, the client verdict's cause and
 * the runner's CPU contention (run.json `result`). With `--compare DIR` (another checkout of this project, e.g. a git
 * worktree of an older commit, its `node_modules` beside it), the runs alternate between the two checkouts (this, DIR;
 * DIR, this; …), each run by its own checkout's code: a regression of the send lag shows against the run-to-run spread
 * of the same code, on the same machine at the same hour. Prints one JSON line per run, then a summary per checkout:
 * the runs' p99 (min, median, max) and the send lags of all its runs' requests pooled (p50, p90, p95, p99, nearest
 * rank; the share above 2 and 5 ms) — one run's p99 rests on its ~2 slowest of ~200 requests, the pooled figures on
 * every run's —, the runner's CPU per offered request (run.json `result.runner_cpu_ms` ÷ `offered`: the run's
 * process, start-up and finalisation included, the simulators apart; min, median, max over the runs) and the load
 * average over the whole bench.
 *
 *   deno run -A bench/route_lag_bench.ts [--runs 4] [--route selfhosted] [--compare ../other-checkout]
 *
 * @module
 */
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import { resolve } from "node:path";
import pl from "nodejs-polars";
import { startLoadSampler } from "../scripts/_load_average.ts";

const { values: v } = parseArgs({
  args: Deno.args,
  options: {
    runs: { type: "string", default: "4" },
    route: { type: "string", default: "selfhosted" },
    compare: { type: "string" },
    child: { type: "string" },
    out: { type: "string" },
  },
});
const ROUTES = ["hosted", "selfhosted", "hybrid"];

/** In a child: one route run from the checkout `root`, its figures on stdout as one JSON line. */
async function child(root: string, out: string): Promise<void> {
  Deno.chdir(root);
  const { runSimRoute } = await import(`file://${root}/scripts/_route_runs.ts`);
  const { SimPool } = await import(`file://${root}/scripts/_sim_process.ts`);
  const pool = new SimPool();
  const tmpDir = await Deno.makeTempDir({ prefix: "route_lag_bench_" });
  try {
    const r = await runSimRoute(pool, v.route, {
      root: `${root}/`,
      workload: "data/workloads/design-v1",
      plan: "data/plans/routes-compare.json",
      out,
      seed: 7,
      tmpDir,
      progress: false,
    });
    const res = r.manifest.result ?? {};
    console.log(JSON.stringify({
      dir: r.dir,
      p99_ms: res.send_lag_p99_ms,
      max_ms: res.send_lag_max_ms,
      client_limited: res.client_limited,
      cause: res.client_limit_cause ?? null,
      cpu_contention: res.cpu_contention ?? null,
      runner_cpu_ms_per_request: res.runner_cpu_ms == null || !res.offered ? null : res.runner_cpu_ms / res.offered,
    }));
  } finally {
    await pool.stopAll();
    await Deno.remove(tmpDir, { recursive: true });
  }
}

if (v.child !== undefined) {
  await child(v.child, v.out!);
  Deno.exit(0);
}

const runs = Number(v.runs);
if (!Number.isSafeInteger(runs) || runs < 1 || !ROUTES.includes(v.route)) {
  console.error(`error: --runs ≥ 1 (integer), --route one of ${ROUTES.join(", ")}`);
  Deno.exit(2);
}
const here = resolve(fileURLToPath(new URL("..", import.meta.url)));
const trees = [here];
if (v.compare !== undefined) {
  const other = resolve(v.compare);
  try {
    Deno.statSync(`${other}/scripts/_route_runs.ts`);
    Deno.statSync(`${other}/deno.json`);
  } catch {
    console.error(`error: --compare ${v.compare}: not a checkout of this project (no scripts/_route_runs.ts)`);
    Deno.exit(2);
  }
  trees.push(other);
}
const out = Deno.makeTempDirSync({ prefix: "route_lag_bench_runs_" });
const p99s = new Map<string, number[]>(trees.map((t) => [t, []]));
const lags = new Map<string, number[]>(trees.map((t) => [t, []]));
const cpus = new Map<string, number[]>(trees.map((t) => [t, []]));
const sampler = startLoadSampler();
for (let i = 0; i < runs; i++) {
  // this, other; other, this; …: neither checkout always goes first.
  const order = i % 2 === 0 ? trees : [...trees].reverse();
  for (const tree of order) {
    const self = fileURLToPath(import.meta.url);
    const r = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--config", `${tree}/deno.json`, "--v8-flags=--max-semi-space-size=64", "-A", self]
        .concat(["--child", tree, "--out", out, "--route", v.route]),
      stdout: "piped",
      stderr: "inherit",
    }).output();
    const line = new TextDecoder().decode(r.stdout).trim().split("\n").at(-1) ?? "";
    if (!r.success || !line.startsWith("{")) {
      console.error(`error: the run from ${tree} failed (exit ${r.code})`);
      Deno.exit(1);
    }
    const { dir, ...got } = JSON.parse(line);
    p99s.get(tree)!.push(got.p99_ms);
    if (typeof got.runner_cpu_ms_per_request === "number") cpus.get(tree)!.push(got.runner_cpu_ms_per_request);
    const lag = pl.readParquet(`${dir}/requests.parquet`, { columns: ["send_lag_ms"] }).getColumn("send_lag_ms");
    lags.get(tree)!.push(...(lag.toArray() as (number | null)[]).filter((x): x is number => x !== null));
    console.log(JSON.stringify({ run: i + 1, checkout: tree, route: v.route, ...got }));
  }
}
sampler.stop();
const r2 = (x: number) => Math.round(x * 100) / 100;
/** The median of sorted values (the mean of the middle two for an even count). */
const middle = (s: number[]) => s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
/** Nearest rank: x₍⌈q·n⌉₎ of the sorted values. */
const rank = (s: number[], q: number) => s[Math.max(0, Math.ceil(q * s.length) - 1)]!;
const summary = Object.fromEntries(
  [...p99s].map(([tree, xs]) => {
    const s = [...xs].sort((a, b) => a - b);
    const median = middle(s);
    const all = lags.get(tree)!.sort((a, b) => a - b);
    const above = (ms: number) => r2((100 * all.filter((x) => x > ms).length) / all.length);
    const cpu = [...cpus.get(tree)!].sort((a, b) => a - b);
    return [tree, {
      runs: s.length,
      run_p99_ms: { min: r2(s[0]!), median: r2(median), max: r2(s.at(-1)!) },
      pooled: {
        requests: all.length,
        ms: { p50: r2(rank(all, 0.5)), p90: r2(rank(all, 0.9)), p95: r2(rank(all, 0.95)), p99: r2(rank(all, 0.99)) },
        percent_above: { "2ms": above(2), "5ms": above(5) },
      },
      runner_cpu_ms_per_request: cpu.length
        ? { min: r2(cpu[0]!), median: r2(middle(cpu)), max: r2(cpu.at(-1)!) }
        : null,
    }];
  }),
);
console.log(JSON.stringify({ summary, load: sampler.text() }));
Deno.removeSync(out, { recursive: true });
