/**
 * What the runner costs while it waits: the whole runner (bench/_dispatch_run.ts: `runLoadTest` in its own
 * process, raw client, SSE, checks, CSV log) against a static SSE responder in another process, at a ladder of
 * rates, each dispatcher variant side by side in interleaved rounds (round 1: every rate, every variant; then
 * round 2 …). Each run is a staged plan: 1 s `warmup`, then `steady` for `--seconds` at the same rate.
 *
 * Per run: steady-stage send lag (`send_lag_ms`, nearest rank) p50 / p99 / max; runner CPU per request over the
 * steady stage (user + system time of the runner process, all threads, from /proc/PID/stat sampled 0.5 s after the
 * stage's start and 0.5 s before its end, ÷ the requests scheduled in between; the main thread's wake-ups — its
 * voluntary context switches, /proc/PID/status — over the same window and requests) and over the whole process (run.json `runner_cpu_ms` ÷ offered, start-up
 * and finalisation included); not_sent; the 1-minute load average when it started.
 *
 *   deno run -A bench/dispatch_bench.ts [--rates 20,100,500,1000,2000,5000] [--seconds 10] [--rounds 3]
 *     [--variants polling=timeout:8:8,sleeping=waker:0.3:0.3] [--server deno|nginx]
 *
 * A variant is `name=timers:leadMs:spinMaxMs[:readsMaxMs[:spinShare]|:noreads]` (runner/dispatch_timers.ts
 * `DispatchWait`; `readsMaxMs` defaults to `spinMaxMs`, `spinShare` to no bound; `noreads`: the loop does not start due
 * requests after the clients' reads, runner/dispatch.ts `reads`, as before 2026-12-06); `timeout:8:8` is the loop
 * before it slept (`POLLING_WAIT`), and `waker:0.3:0.3:0.3:0.05` the runner's own (`DISPATCH_WAIT`). Bounded: each run sends at most rate × (seconds + 1) requests to 127.0.0.1.
 * @module
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { readLogCsv } from "../runner/sinks/csv_read.ts";
import { tinyCase, warmupSteadyPlan, writeWorkload } from "../testing/tiny_workload.ts";
import { startStaticServer } from "./static_sse_server.ts";
import { processCpuMs } from "./_runner_step.ts";

const ROOT = new URL("../", import.meta.url).pathname;
const { values: v } = parseArgs({
  args: Deno.args,
  options: {
    rates: { type: "string", default: "20,100,500,1000,2000,5000" },
    seconds: { type: "string", default: "10" },
    rounds: { type: "string", default: "3" },
    variants: { type: "string", default: "polling=timeout:8:8,sleeping=waker:0.3:0.3" },
    server: { type: "string", default: "deno" },
  },
});
const rates = v.rates!.split(",").map(Number);
const seconds = Number(v.seconds);
const rounds = Number(v.rounds);
const variants = v.variants!.split(",").map((s) => {
  const [name, spec] = s.split("=");
  const [timers, lead, spin, reads, share] = (spec ?? "").split(":");
  const readsMaxMs = reads === undefined || reads === "noreads" ? Number(spin) : Number(reads);
  return {
    name: name!,
    timers: timers!,
    leadMs: Number(lead),
    spinMaxMs: Number(spin),
    readsMaxMs,
    spinShare: share === undefined ? Infinity : Number(share),
    reads: reads !== "noreads",
  };
});
if (
  rates.some((r) => !(r > 0)) || !(seconds >= 2) || (seconds + 1) * Math.max(...rates) > 100_000 ||
  !(rounds >= 1) ||
  variants.some((x) =>
    !["waker", "timeout"].includes(x.timers) || !(x.leadMs >= 0) || !(x.spinMaxMs >= 0) || !(x.readsMaxMs >= 0) ||
    !(x.spinShare > 0)
  ) ||
  v.variants!.split(",").some((s) => ![3, 4, 5].includes(s.split(":").length) || /:noreads:/.test(s))
) {
  console.error(
    "dispatch_bench: --rates positive, --seconds ≥ 2, rate × (seconds + 1) ≤ 100000, --rounds ≥ 1, --variants name=waker|timeout:LEAD:SPIN[:READS[:SHARE]|:noreads]",
  );
  Deno.exit(2);
}

/**
 * The times the runner's main thread gave up its CPU to wait (`voluntary_ctxt_switches` of /proc/PID/status, the
 * thread-group leader's): each is a sleep, so each is a wake-up to come.
 */
function mainWakeups(pid: number): number {
  return Number(/voluntary_ctxt_switches:\s+(\d+)/.exec(Deno.readTextFileSync(`/proc/${pid}/status`))?.[1] ?? NaN);
}
const load1 = () => Number(Deno.readTextFileSync("/proc/loadavg").split(" ")[0]);
const sleepUntil = (unixMs: number) => new Promise((r) => setTimeout(r, Math.max(0, unixMs - Date.now())));
const rank = (xs: number[], p: number) => xs[Math.min(xs.length - 1, Math.ceil(p * xs.length) - 1)] ?? NaN;

interface Result {
  round: number;
  rate: number;
  variant: string;
  load: number;
  offered: number;
  notSent: number;
  ok: number;
  p50: number;
  p99: number;
  max: number;
  steadyCpu: number;
  totalCpu: number;
  steadyWakeups: number;
}

async function runOnce(dir: string, target: string, workload: string, rate: number, variant: typeof variants[0]) {
  const runId = `r${rate}-${variant.name}`;
  const plan = warmupSteadyPlan(dir, `p${rate}`, rate, seconds);
  const load = load1();
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      // As in `deno task run`: a larger young generation means fewer scavenge pauses.
      "--v8-flags=--max-semi-space-size=64",
      join(ROOT, "bench/_dispatch_run.ts"),
      JSON.stringify({ workload, plan, target, out: dir, runId, ...variant }),
    ],
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const stderr = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let errText = "";
  const drain = (async () => {
    for (let r = await stderr.read(); !r.done; r = await stderr.read()) errText += r.value;
  })();
  // run.json is written at ms 0; its epoch places the steady stage.
  const manifestPath = join(dir, runId, "run.json");
  let epoch = NaN;
  for (let k = 0; k < 600 && Number.isNaN(epoch); k++) {
    await new Promise((r) => setTimeout(r, 50));
    try {
      epoch = Date.parse(JSON.parse(Deno.readTextFileSync(manifestPath)).epoch_iso);
    } catch { /* not yet written (or being written) */ }
  }
  // The CPU window: the steady stage less 0.5 s at each end (the process may end right at the stage's end).
  const window = { from: 1500, to: 500 + seconds * 1000 };
  let steadyCpu = NaN;
  let steadyWakeups = NaN;
  if (!Number.isNaN(epoch)) {
    await sleepUntil(epoch + window.from);
    const [c0, w0] = [processCpuMs(child.pid) ?? NaN, mainWakeups(child.pid)];
    await sleepUntil(epoch + window.to);
    [steadyCpu, steadyWakeups] = [(processCpuMs(child.pid) ?? NaN) - c0, mainWakeups(child.pid) - w0];
  }
  const status = await child.status;
  await drain;
  if (!status.success) throw new Error(`run ${runId} failed: ${errText}`);
  const manifest = JSON.parse(Deno.readTextFileSync(manifestPath));
  const rows = await readLogCsv(join(dir, runId, "requests.csv"), "requests");
  const steady = rows.filter((r) => r.stage === "steady");
  const lags = steady.map((r) => r.send_lag_ms).filter((x): x is number => x !== null).sort((a, b) => a - b);
  const inWindow = rows.filter((r) => r.scheduled_ms >= window.from && r.scheduled_ms < window.to).length;
  Deno.removeSync(join(dir, runId), { recursive: true });
  return {
    load,
    offered: rows.length,
    notSent: manifest.result.not_sent,
    ok: rows.filter((r) => r.outcome === "ok").length,
    p50: rank(lags, 0.5),
    p99: rank(lags, 0.99),
    max: lags.at(-1) ?? NaN,
    steadyCpu: steadyCpu / inWindow,
    steadyWakeups: steadyWakeups / inWindow,
    totalCpu: manifest.result.runner_cpu_ms / rows.length,
  };
}

const dir = Deno.makeTempDirSync({ prefix: "dispatch-bench-" });
const server = await startStaticServer(v.server!);
const workload = writeWorkload(dir, [tinyCase()]);
const results: Result[] = [];
const f = (x: number, d = 3) => Number.isNaN(x) ? "–" : x.toFixed(d);
console.log(
  `dispatch ladder vs ${v.server} responder (${server.url.origin}), 1 s warmup + ${seconds} s steady per run, ` +
    `${rounds} round(s), ${new Date().toISOString()}, ${Deno.readTextFileSync("/proc/loadavg").trim()} (loadavg)`,
);
console.log(
  `variants: ${
    variants.map((x) =>
      `${x.name}=${x.timers}:${x.leadMs}:${x.spinMaxMs}:${x.reads ? x.readsMaxMs : "noreads"}${
        x.spinShare === Infinity ? "" : `:${x.spinShare}`
      }`
    ).join(", ")
  }`,
);
console.log(
  "| round | rate/s | variant | load 1m | offered | not_sent | ok | steady lag p50 / p99 / max (ms) | CPU ms/req steady | " +
    "CPU ms/req whole run | main-thread wake-ups/req steady |",
);
console.log("| ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
try {
  for (let round = 1; round <= rounds; round++) {
    for (const rate of rates) {
      for (const variant of variants) {
        const r = {
          round,
          rate,
          variant: variant.name,
          ...await runOnce(dir, server.url.origin, workload, rate, variant),
        };
        results.push(r);
        console.log(
          `| ${round} | ${rate} | ${r.variant} | ${r.load.toFixed(2)} | ${r.offered} | ${r.notSent} | ${r.ok} | ` +
            `${f(r.p50)} / ${f(r.p99)} / ${f(r.max)} | ${f(r.steadyCpu)} | ${f(r.totalCpu)} | ${
              f(r.steadyWakeups, 2)
            } |`,
        );
      }
    }
  }
} finally {
  await server.stop();
  Deno.removeSync(dir, { recursive: true });
}

// Per rate and variant over the rounds: median [min–max].
const span = (xs: number[], d = 3) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = (s[Math.floor((s.length - 1) / 2)]! + s[Math.ceil((s.length - 1) / 2)]!) / 2;
  return `${f(mid, d)} [${f(s[0]!, d)}–${f(s.at(-1)!, d)}]`;
};
console.log("\nmedian [min–max] over the rounds:\n");
console.log(
  "| rate/s | variant | lag p50 (ms) | lag p99 (ms) | lag max (ms) | CPU ms/req steady | CPU ms/req whole run | " +
    "main-thread wake-ups/req steady | load 1m |",
);
console.log("| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
for (const rate of rates) {
  for (const variant of variants) {
    const rs = results.filter((r) => r.rate === rate && r.variant === variant.name);
    if (rs.length === 0) continue;
    console.log(
      `| ${rate} | ${variant.name} | ${span(rs.map((r) => r.p50))} | ${span(rs.map((r) => r.p99))} | ` +
        `${span(rs.map((r) => r.max))} | ${span(rs.map((r) => r.steadyCpu))} | ${span(rs.map((r) => r.totalCpu))} | ` +
        `${span(rs.map((r) => r.steadyWakeups), 2)} | ${span(rs.map((r) => r.load), 2)} |`,
    );
  }
}
