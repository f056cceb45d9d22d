/**
 * Every core of one machine: the full runner CLI with `--workers 1` (one
 * process) and `--workers N` (N shard processes, one schedule, one start) at
 * a ladder of rates against a fast static SSE responder on loopback (nginx,
 * or the Deno responder of bench/static_sse_server.ts). Worker counts are
 * interleaved at each rate, and the whole ladder is repeated `--rounds`
 * times, so a busy moment of the shared machine falls on every count alike.
 * Each run is a staged plan: a 1 s `warmup` stage, then `--seconds` of
 * `steady` at the rate; the table reads the steady stage of every shard.
 *
 *   deno run -A bench/workers_bench.ts [--server nginx|deno] [--workers 1,2] [--rates 5000,10000]
 *     [--seconds 5] [--rounds 1] [--idle-pct 80] [--idle-wait-s 20]
 *
 * Per run: requests offered, not_sent, ok, the other outcomes, send lag p50 / p99 / max of the steady stage (nearest rank, over every
 * shard), the rate of answers, the runner's CPU per 1,000 requests (every worker's run.json `runner_cpu_ms`; the
 * parent's own is not in it), the machine's 1-minute load average before the run and its busy CPU during it (from
 * /proc/stat: 200 % = both cores of this machine, whoever used them), and per worker its main thread's busy share of
 * the run (ρ: CPU time ÷ wall time) and how long that thread waited for a CPU (run.json `result.cpu_contention`, from
 * /proc schedstat; "-" where the runner could not read it). Before each run the bench waits up to
 * `--idle-wait-s` for the machine to be `--idle-pct` idle over one second, and says how idle it was.
 *
 * Bounded: each run sends at most rate × (seconds + 1) ≤ 200,000 requests to 127.0.0.1 and stops.
 * @module
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { readLogCsv } from "../runner/sinks/csv_read.ts";
import type { RequestRow } from "../schema/events.ts";
import { tinyCase, warmupSteadyPlan, writeWorkload } from "../testing/tiny_workload.ts";
import { startStaticServer } from "./static_sse_server.ts";

const ROOT = new URL("../", import.meta.url).pathname;
const { values: v } = parseArgs({
  args: Deno.args,
  options: {
    server: { type: "string", default: "nginx" },
    workers: { type: "string", default: "1,2" },
    rates: { type: "string", default: "5000,10000" },
    seconds: { type: "string", default: "5" },
    rounds: { type: "string", default: "1" },
    "idle-pct": { type: "string", default: "80" },
    "idle-wait-s": { type: "string", default: "20" },
  },
});
const counts = v.workers!.split(",").map(Number);
const rates = v.rates!.split(",").map(Number);
const seconds = Number(v.seconds);
const rounds = Number(v.rounds);
if (
  counts.some((w) => !(Number.isInteger(w) && w >= 1 && w <= 8)) || rates.some((r) => !(r > 0)) ||
  !(seconds > 0) || (seconds + 1) * Math.max(...rates) > 200_000 || !(Number.isInteger(rounds) && rounds >= 1)
) {
  console.error("workers_bench: --workers 1–8, --rates > 0, (seconds + 1) × rate ≤ 200000, --rounds ≥ 1");
  Deno.exit(2);
}

/** Busy and total jiffies of the whole machine (/proc/stat, first line). */
function cpuTimes(): { busy: number; total: number } {
  const f = Deno.readTextFileSync("/proc/stat").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number);
  const idle = f[3]! + f[4]!; // idle + iowait
  const total = f.reduce((a, b) => a + b, 0);
  return { busy: total - idle, total };
}
const cores = navigator.hardwareConcurrency;
const busyPct = (a: ReturnType<typeof cpuTimes>, b: ReturnType<typeof cpuTimes>) =>
  (100 * cores * (b.busy - a.busy)) / Math.max(1, b.total - a.total);
const load1 = () => Number(Deno.readTextFileSync("/proc/loadavg").split(" ")[0]);

/** Waits until the machine was at least `pct` % idle over one second, at most `maxS`; returns the last idle %. */
async function waitIdle(pct: number, maxS: number): Promise<number> {
  let idle = 0;
  for (let s = 0; s < Math.max(1, maxS); s++) {
    const a = cpuTimes();
    await new Promise((r) => setTimeout(r, 1000));
    idle = 100 - busyPct(a, cpuTimes()) / cores;
    if (idle >= pct) break;
  }
  return idle;
}

/** Nearest-rank percentile of sorted values. */
const rank = (xs: number[], p: number) => xs[Math.min(xs.length - 1, Math.ceil(p * xs.length) - 1)] ?? NaN;

const dir = Deno.makeTempDirSync({ prefix: "workers-bench-" });
const server = await startStaticServer(v.server!);
const workload = writeWorkload(dir, [tinyCase()]);
const results: { w: number; rate: number; p99: number; notSent: number }[] = [];

/** One run of `rate` with `w` workers; prints its row. */
async function runOnce(w: number, rate: number, round: number): Promise<void> {
  const idle = await waitIdle(Number(v["idle-pct"]), Number(v["idle-wait-s"]));
  const runId = `w${w}-r${rate}-${round}`;
  const plan = warmupSteadyPlan(dir, runId, rate, seconds);
  const load = load1();
  const before = cpuTimes();
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--v8-flags=--max-semi-space-size=64",
      join(ROOT, "runner/cli/run.ts"),
      ...["--workload", workload, "--plan", plan, "--target", server.url.href, "--out", dir, "--run-id", runId],
      ...["--workers", String(w), "--format", "csv", "--no-progress", "--no-server-timeline", "--lag-limit-ms", "1"],
    ],
    stdout: "null",
    stderr: "piped",
  }).output();
  const busy = busyPct(before, cpuTimes());
  if (out.code !== 0) {
    console.error(`w=${w} rate=${rate}: exit ${out.code}: ${new TextDecoder().decode(out.stderr)}`);
    return;
  }
  const runDir = join(dir, runId);
  const shardDirs = w === 1 ? [runDir] : [...Deno.readDirSync(runDir)].map((e) => join(runDir, e.name));
  const rows: RequestRow[] = [];
  let cpuMs = 0;
  /** Per worker: its main thread's CPU share over the run (ρ, %) and its waits for a CPU (ms), from run.json. */
  const rhos: string[] = [];
  const waits: string[] = [];
  for (const d of shardDirs) {
    rows.push(...await readLogCsv(join(d, "requests.csv"), "requests"));
    const result = JSON.parse(Deno.readTextFileSync(join(d, "run.json"))).result;
    cpuMs += result.runner_cpu_ms ?? 0;
    const c = result.cpu_contention;
    rhos.push(c ? (100 * c.runner_main_cpu_ms / c.window_ms).toFixed(0) : "-");
    waits.push(c ? c.run_queue_wait_ms.toFixed(0) : "-");
  }
  const steady = rows.filter((r) => r.stage === "steady");
  const lags = steady.map((r) => r.send_lag_ms).filter((x): x is number => x !== null).sort((a, b) => a - b);
  const notSent = rows.filter((r) => r.outcome === "not_sent").length;
  const done = rows.filter((r) => r.completed_ms !== null);
  const span = Math.max(...done.map((r) => r.completed_ms!)) - Math.min(...rows.map((r) => r.scheduled_ms));
  const p99 = rank(lags, 0.99);
  const others = new Map<string, number>();
  for (const r of rows) if (r.outcome !== "ok") others.set(r.outcome, (others.get(r.outcome) ?? 0) + 1);
  const otherText = [...others].map(([o, n]) => `${o} ${n}`).join(", ") || "-";
  results.push({ w, rate, p99, notSent });
  console.log(
    `| ${round} | ${w} | ${rate} | ${rows.length} | ${notSent} | ${rows.filter((r) => r.outcome === "ok").length} | ` +
      `${otherText} | ` +
      `${rank(lags, 0.5).toFixed(3)} / ${p99.toFixed(3)} / ${lags.at(-1)!.toFixed(3)} | ` +
      `${(done.length / (span / 1000)).toFixed(0)} | ${(cpuMs / rows.length * 1000).toFixed(0)} | ` +
      `${rhos.join(", ")} | ${waits.join(", ")} | ${load.toFixed(2)} | ${idle.toFixed(0)} | ${busy.toFixed(0)} |`,
  );
  Deno.removeSync(runDir, { recursive: true });
}

console.log(
  `workers ladder vs ${v.server} (${server.url.href}), ${seconds} s steady per run, ${rounds} round(s), ` +
    `${cores} cores, ${new Date().toISOString()}`,
);
console.log(
  "| round | workers | offered rps | requests | not_sent | ok | not ok, by outcome | " +
    "steady send lag p50 / p99 / max (ms) | answered rps | " +
    "worker CPU ms / 1k req | main thread busy % (ρ), per worker | its waits for a CPU (ms), per worker | " +
    "load (1 min) before | idle % before | machine busy % during |",
);
console.log(
  "| ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
);
try {
  for (let round = 1; round <= rounds; round++) {
    for (const rate of rates) for (const w of counts) await runOnce(w, rate, round);
  }
  if (rounds > 1) {
    console.log(
      "\n| workers | offered rps | p99 send lag per round (ms) | rounds with p99 ≤ 1 ms | not_sent, all rounds |",
    );
    console.log("| ---: | ---: | --- | ---: | ---: |");
    for (const rate of rates) {
      for (const w of counts) {
        const rs = results.filter((r) => r.w === w && r.rate === rate);
        console.log(
          `| ${w} | ${rate} | ${rs.map((r) => r.p99.toFixed(2)).join(", ")} | ${
            rs.filter((r) => r.p99 <= 1).length
          } of ${rs.length} | ${rs.reduce((a, r) => a + r.notSent, 0)} |`,
        );
      }
    }
  }
} finally {
  await server.stop();
  Deno.removeSync(dir, { recursive: true });
}
