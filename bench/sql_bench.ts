/**
 * SQL benchmark (issue 17): on a generated sharded log (`shard-i-of-N/`
 * Parquet folders, `bench/_gen_sql_log.ts`, seeded), the goodput table and
 * the p95 e2e latency by (a) the polars streaming path — `scanRun` (its
 * checks included), `goodput()` on the streaming engine one shard at a time,
 * and the window's e2e values collected by a streaming scan into the
 * project's nearest-rank percentile — and (b) the SQL path on DuckDB —
 * `openSqlRun` (the same checks), `sqlGoodput`, `sqlLatency` — each in its
 * own child process, interleaved, several reps; wall time, the child's phases
 * and its peak RSS (VmHWM from /proc), the machine's load average before and
 * after each run. Both results must agree (every count of the overall row,
 * p95 and its n) or the bench fails. From the sizes measured it fits peak RSS
 * against n and extrapolates (labelled so) to 100 M requests.
 *
 * ```sh
 * npx deno run -A bench/sql_bench.ts --sizes 1000000,3000000,10000000 --shards 10 --reps 3
 * ```
 *
 * @module
 */
import { parseArgs } from "node:util";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const HERE = fileURLToPath(new URL(".", import.meta.url));
const ROOT = join(HERE, "..");
const POLICY_FILE = join(ROOT, "data/slo/design-v1.json");

const { values: args } = parseArgs({
  args: Deno.args,
  options: {
    sizes: { type: "string", default: "1000000,3000000,10000000" },
    shards: { type: "string", default: "10" },
    reps: { type: "string", default: "3" },
    seed: { type: "string", default: "1" },
    engines: { type: "string", default: "polars,duckdb" },
    "memory-limit": { type: "string" },
    out: { type: "string", default: join(HERE, "out") },
    child: { type: "string" },
    dir: { type: "string" },
  },
});

/** What a child reports. */
interface ChildResult {
  engine: string;
  open_ms: number;
  goodput_ms: number;
  p95_ms: number;
  total_ms: number;
  /** VmHWM when the goodput table was done (before the percentile). */
  goodput_rss_mb: number;
  peak_rss_mb: number;
  overall: Record<string, unknown>;
  p95: number | null;
  p95_n: number;
}

const now = () => performance.now();
const status = (key: string) =>
  Number(new RegExp(`${key}:\\s+(\\d+) kB`).exec(Deno.readTextFileSync("/proc/self/status"))?.[1] ?? NaN) / 1024;
const loadavg = () => Deno.readTextFileSync("/proc/loadavg").split(" ").slice(0, 3).join(" ");

/** The polars streaming path: scanRun, goodput one shard at a time, p95 e2e from a streaming scan. */
async function polarsChild(dir: string): Promise<ChildResult> {
  const pl = (await import("nodejs-polars")).default;
  const { scanRun } = await import("../analysis/run/scan_run.ts");
  const { goodput } = await import("../analysis/goodput/goodput.ts");
  const { loadSloPolicy, runWindow } = await import("../analysis/goodput/policy.ts");
  const { percentileWithCI } = await import("../analysis/latency/percentile.ts");
  const policy = await loadSloPolicy(POLICY_FILE);
  const t0 = now();
  const run = await scanRun(dir, { onWarning: () => {} });
  const t1 = now();
  const result = goodput(run, policy);
  const t2 = now();
  const goodputRss = status("VmHWM");
  const window = runWindow(run, policy.window);
  const sched = pl.col("scheduled_ms");
  const inWindow = window.intervals.map(([a, b]) => sched.gtEq(a).and(sched.lt(b))).reduce((x, y) => x.or(y));
  const e2e = run.requests.select("scheduled_ms", "completed_ms", "outcome")
    .filter(inWindow.and(pl.col("outcome").eq(pl.lit("ok"))).and(pl.col("completed_ms").isNotNull()))
    .select(pl.col("completed_ms").minus(sched).alias("e2e_ms"))
    .collectSync({ engine: "streaming" }).getColumn("e2e_ms").toTypedArray() as Float64Array;
  const p95 = percentileWithCI(e2e, 0.95);
  const t3 = now();
  return {
    engine: "polars",
    open_ms: t1 - t0,
    goodput_ms: t2 - t1,
    p95_ms: t3 - t2,
    total_ms: t3 - t0,
    goodput_rss_mb: goodputRss,
    peak_rss_mb: status("VmHWM"),
    overall: { ...result.overall },
    p95: p95.value,
    p95_n: p95.n,
  };
}

/** The SQL path on DuckDB: openSqlRun, sqlGoodput, the p95 e2e of sqlLatency. */
async function duckdbChild(dir: string, memoryLimit: string | undefined): Promise<ChildResult> {
  const { openSqlRun } = await import("../analysis/sql/sql_run.ts");
  const { sqlGoodput } = await import("../analysis/sql/sql_goodput.ts");
  const { sqlLatency } = await import("../analysis/sql/sql_latency.ts");
  const { loadSloPolicy, runWindow } = await import("../analysis/goodput/policy.ts");
  const policy = await loadSloPolicy(POLICY_FILE);
  const t0 = now();
  const run = await openSqlRun(dir, {
    onWarning: () => {},
    ...(memoryLimit ? { memoryLimit, tempDirectory: join(args.out, "duckdb-tmp") } : {}),
  });
  try {
    const t1 = now();
    const { result } = await sqlGoodput(run, policy);
    const t2 = now();
    const goodputRss = status("VmHWM");
    const window = runWindow(run, policy.window);
    const { rows } = await sqlLatency(run, window, { metrics: ["e2e_ms"], percentiles: [0.95] });
    const t3 = now();
    const p95 = rows.find((r) => r.grain === "overall")!;
    return {
      engine: memoryLimit ? `duckdb, memory_limit ${memoryLimit}` : "duckdb",
      open_ms: t1 - t0,
      goodput_ms: t2 - t1,
      p95_ms: t3 - t2,
      total_ms: t3 - t0,
      goodput_rss_mb: goodputRss,
      peak_rss_mb: status("VmHWM"),
      overall: { ...result.overall },
      p95: p95.value,
      p95_n: p95.n,
    };
  } finally {
    run.close();
  }
}

if (args.child) {
  const r = args.child === "polars" ? await polarsChild(args.dir!) : await duckdbChild(args.dir!, args["memory-limit"]);
  console.log(JSON.stringify(r));
  Deno.exit(0);
}

/** Runs one child and returns its report with the wall time and the load average around it. */
async function runChild(engine: string, dir: string): Promise<ChildResult & { wall_ms: number; load: string }> {
  const [name, limit] = engine.split("@");
  const before = loadavg();
  const t0 = now();
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      join(HERE, "sql_bench.ts"),
      "--child",
      name!,
      "--dir",
      dir,
      "--out",
      args.out,
      ...(limit ? ["--memory-limit", limit] : []),
    ],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const wall = now() - t0;
  if (out.code !== 0) throw new Error(`${engine} child failed: ${new TextDecoder().decode(out.stderr)}`);
  const lines = new TextDecoder().decode(out.stdout).trim().split("\n");
  return { ...JSON.parse(lines[lines.length - 1]!), wall_ms: wall, load: `${before} → ${loadavg()}` };
}

/** Generates the log of `n` requests in `shards` folders unless it is there; returns its folder and size. */
async function logOf(n: number, shards: number, seed: number): Promise<{ dir: string; mb: number }> {
  const dir = join(args.out, `sql-${n}-${shards}-${seed}`);
  const done = join(dir, "generated.json");
  try {
    Deno.statSync(done);
  } catch {
    // A folder without generated.json was left half-written: write it again.
    Deno.mkdirSync(dir, { recursive: true });
    Deno.removeSync(dir, { recursive: true });
    const t0 = now();
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", join(HERE, "_gen_sql_log.ts"), dir, String(n), String(shards), String(seed)],
      cwd: ROOT,
    }).output();
    if (out.code !== 0) throw new Error(`generating ${dir} failed`);
    Deno.writeTextFileSync(done, JSON.stringify({ n, shards, seed, generate_ms: Math.round(now() - t0) }));
  }
  let bytes = 0;
  for (const s of Deno.readDirSync(dir)) {
    if (!s.isDirectory) continue;
    for (const f of Deno.readDirSync(join(dir, s.name))) bytes += Deno.statSync(join(dir, s.name, f.name)).size;
  }
  return { dir, mb: bytes / 2 ** 20 };
}

const sizes = args.sizes.split(",").map(Number);
const shards = Number(args.shards), reps = Number(args.reps), seed = Number(args.seed);
const engines = args.engines.split(",").map((
  e,
) => (e === "duckdb" && args["memory-limit"] ? `duckdb@${args["memory-limit"]}` : e));
const mem = /MemTotal:\s+(\d+)/.exec(Deno.readTextFileSync("/proc/meminfo"))![1]!;
console.log(
  `# machine: ${navigator.hardwareConcurrency} cores, ${(Number(mem) / 2 ** 20).toFixed(1)} GB RAM; ` +
    `start ${new Date().toISOString()}, load ${loadavg()}`,
);
console.log(
  "| n | shards | Parquet MB | rep | engine | open ms | goodput ms | p95 ms | child total ms | wall ms | " +
    "peak RSS MB after goodput | peak RSS MB | load 1/5/15 min before → after |",
);
console.log("| -: | -: | -: | -: | - | -: | -: | -: | -: | -: | -: | -: | - |");
const peaks = new Map<string, { n: number; mb: number }[]>();
for (const n of sizes) {
  const log = await logOf(n, shards, seed);
  for (let rep = 1; rep <= reps; rep++) {
    // Interleaved: the order of the engines alternates from one rep to the next.
    const order = rep % 2 === 1 ? engines : [...engines].reverse();
    const got: (ChildResult & { wall_ms: number; load: string })[] = [];
    for (const e of order) {
      const r = await runChild(e, log.dir);
      got.push(r);
      peaks.set(r.engine, [...(peaks.get(r.engine) ?? []), { n, mb: r.peak_rss_mb }]);
      const f = (x: number) => x.toFixed(0);
      console.log(
        `| ${n} | ${shards} | ${log.mb.toFixed(0)} | ${rep} | ${r.engine} | ${f(r.open_ms)} | ${f(r.goodput_ms)} | ` +
          `${f(r.p95_ms)} | ${f(r.total_ms)} | ${f(r.wall_ms)} | ${f(r.goodput_rss_mb)} | ${
            f(r.peak_rss_mb)
          } | ${r.load} |`,
      );
    }
    // The engines must agree before any number counts.
    const [a, ...rest] = got;
    for (const b of rest) {
      if (JSON.stringify(a!.overall) !== JSON.stringify(b.overall) || a!.p95 !== b.p95 || a!.p95_n !== b.p95_n) {
        throw new Error(`${a!.engine} and ${b.engine} disagree at n = ${n}: ${JSON.stringify([a, b])}`);
      }
    }
    console.log(
      `<!-- n = ${n} rep ${rep}: equal overall rows (offered ${a!.overall.offered}, accepted ` +
        `${a!.overall.accepted}) and p95 e2e ${a!.p95} ms (n = ${a!.p95_n}) -->`,
    );
  }
}
// Peak RSS against n: least squares over every measured run, extrapolated to 100 M (labelled: not measured).
console.log(`\n# end ${new Date().toISOString()}, load ${loadavg()}`);
for (const [engine, pts] of peaks) {
  const k = pts.length, sx = pts.reduce((s, p) => s + p.n, 0), sy = pts.reduce((s, p) => s + p.mb, 0);
  const sxx = pts.reduce((s, p) => s + p.n * p.n, 0), sxy = pts.reduce((s, p) => s + p.n * p.mb, 0);
  const slope = k > 1 && sxx * k !== sx * sx ? (k * sxy - sx * sy) / (k * sxx - sx * sx) : NaN;
  const icpt = (sy - slope * sx) / k;
  const at = (n: number) => pts.filter((p) => p.n === n).map((p) => p.mb);
  const lo = Math.min(...sizes), hi = Math.max(...sizes);
  const ratio = `${(Math.min(...at(hi)) / Math.max(...at(lo))).toFixed(2)}–${
    (Math.max(...at(hi)) / Math.min(...at(lo))).toFixed(2)
  }`;
  console.log(
    `${engine}: peak RSS ${lo} → ${hi} requests ×${ratio}; fit ${icpt.toFixed(0)} MB + ${
      (slope * 1e6).toFixed(1)
    } MB per million requests; EXTRAPOLATED (not measured) to 100,000,000 requests: ${
      (icpt + slope * 1e8).toFixed(0)
    } MB`,
  );
}
