/**
 * The runner against a compiled reference sender (bench/reference_sender/, Go net/http, one goroutine per request
 * sleeping until due), interleaved on the same static SSE responder (64 events per answer): for each round and each
 * rate, the runner CLI, the reference and the Deno floor send the same schedule (the runner's own, 1 s `warmup` +
 * `--seconds` of `steady`), with the 1-minute load average read before and after each and the responder's CPU over it
 * (printed per offered request, so a step that shed requests shows less). Prints each step and, per rate,
 * the ratios runner / reference, runner / floor and floor / reference of CPU per request and of the steady stage's p99
 * and max send lag (nearest rank), per round, their median and range, and whether each kept pace; writes it all as
 * JSON under `--out`.
 *
 *   deno run -A bench/reference_bench.ts [--rates 50,500,5000,10000] [--rounds 3] [--seconds 5] [--out bench/out]
 *     [--server deno|nginx] [--senders runner,reference,floor[,floor-parse]] [--runner-workers 1]
 *
 * `floor` is the Deno floor (bench/floor_sender.ts): the same schedule and request bytes over the runner's transport
 * with nothing else done per request, so that runner / floor is what the runner's code adds and floor / reference what
 * the runtime costs. `floor-parse` is the floor with `--parse`: each answer's chunks and SSE events taken apart and
 * read as the runner's `openai-chat` dialect reads them, in one module, so that runner / floor-parse is what the runner
 * adds beyond reading its answers. The senders of a round run in turn, rotated by one each round (round 1: as listed).
 *
 * `--runner-workers N` runs the runner as `--workers N` (N processes, each a shard of the schedule; docs/runner.md
 * "Use every core"): its figures are the shards' together and its CPU that of the parent and every worker.
 *
 * `--server nginx` (the issue's set-up: a one-process nginx, Debian's `nginx-light`, on PATH) serves the same 64-event
 * body and leaves the senders more of the two cores than the Deno responder does.
 *
 * Bounded: each step sends at most rate × (seconds + 1) requests to 127.0.0.1 and stops.
 * @module
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { runRunnerStep, sameArrivals } from "./_runner_step.ts";
import { processCpuMs, startStaticServer } from "./static_sse_server.ts";
import {
  buildReferenceSender,
  findGo,
  floorSenderCommand,
  GO_FALLBACK,
  runnerRequest,
  runReferenceSender,
  saveRunnerSchedule,
} from "./_reference_sender.ts";
import { PACE_SHARE, type RateRatios, rateRatios, type RatioSpread, type StepFigures } from "./_reference_ratios.ts";
import { tinyCase, warmupSteadyPlan, writeWorkload } from "../testing/tiny_workload.ts";
import { load1 } from "../scripts/_load_average.ts";

const ROOT = new URL("../", import.meta.url).pathname;
const { values: v } = parseArgs({
  args: Deno.args,
  options: {
    rates: { type: "string", default: "50,500,5000,10000" },
    rounds: { type: "string", default: "3" },
    seconds: { type: "string", default: "5" },
    out: { type: "string", default: join(ROOT, "bench/out") },
    server: { type: "string", default: "deno" },
    senders: { type: "string", default: "runner,reference,floor" },
    "runner-workers": { type: "string", default: "1" },
  },
});
const rates = v.rates!.split(",").map(Number);
const rounds = Number(v.rounds);
const SENDERS = ["runner", "reference", "floor", "floor-parse"] as const;
type Sender = typeof SENDERS[number];
const senders = v.senders!.split(",") as Sender[];
const seconds = Number(v.seconds);
const runnerWorkers = Number(v["runner-workers"]);
if (
  !Number.isInteger(runnerWorkers) || runnerWorkers < 1 || runnerWorkers > 4 ||
  rates.some((r) => !(r > 0)) || !Number.isInteger(rounds) || rounds < 1 || !(seconds > 0) ||
  (seconds + 1) * Math.max(...rates) > 200_000 || !["deno", "nginx"].includes(v.server!) ||
  senders.length === 0 || senders.some((x) => !SENDERS.includes(x)) || new Set(senders).size !== senders.length
) {
  console.error(
    "reference_bench: --rates positive, --rounds a whole number ≥ 1, rate × (seconds + 1) ≤ 200000, " +
      "--server deno or nginx, --senders some of runner,reference,floor,floor-parse, --runner-workers 1 to 4",
  );
  Deno.exit(2);
}
const go = findGo();
if (go === null) {
  console.error(`reference_bench: no Go on PATH nor at ${GO_FALLBACK} (install Go, or Debian's golang-go)`);
  Deno.exit(2);
}

/** One sender's step, with the machine's 1-minute load average before and after it. */
interface Step extends StepFigures {
  sender: Sender;
  failed: number;
  p50_ms: number;
  peak_rss_mb: number | null;
  /**
   * The responder's CPU over the step (user + system, ms, `/proc/<pid>/stat` at 10 ms resolution; null where not
   * known): with the sender's, what the step took of the machine's two cores.
   */
  server_cpu_ms: number | null;
  /** The 1-minute load average (/proc/loadavg); null where the system does not tell. */
  load_before: number | null;
  load_after: number | null;
}

const sha256 = async (file: string) =>
  Array.from(new Uint8Array(await crypto.subtle.digest("SHA-256", await Deno.readFile(file))))
    .map((b) => b.toString(16).padStart(2, "0")).join("");

function f(x: number | null, digits: number): string {
  return x === null || Number.isNaN(x) ? "—" : x.toFixed(digits);
}

const STEP_HEAD =
  "| round | rate | sender | requests | ok | not_sent | failed | steady lag p50 / p99 / max (ms) | CPU ms / req | " +
  "CPU ms / req, steady window | server CPU ms / req | completed rps | peak RSS MB | load 1m before → after |\n" +
  "| ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |";

function stepLine(s: Step): string {
  return `| ${s.round} | ${s.rate} | ${s.sender} | ${s.requests} | ${s.ok} | ${s.not_sent} | ${s.failed} | ` +
    `${f(s.p50_ms, 3)} / ${f(s.p99_ms, 3)} / ${f(s.max_ms, 3)} | ${f(s.cpu_ms / s.requests, 3)} | ` +
    `${s.window_cpu_ms == null ? "—" : f(s.window_cpu_ms / s.window_requests!, 3)} | ` +
    `${s.server_cpu_ms === null ? "—" : f(s.server_cpu_ms / s.requests, 3)} | ` +
    `${f(s.completed_rps, 0)} | ${f(s.peak_rss_mb, 0)} | ${f(s.load_before, 2)} → ${f(s.load_after, 2)} |`;
}

const RATIO_HEAD = "| rate | ratio | per round | median | range | kept pace |\n" +
  "| ---: | --- | --- | ---: | ---: | --- |";

function ratioLine(r: RateRatios, a: Sender, b: Sender): string {
  const yes = (x: boolean) => x ? "yes" : "no";
  const pace = `${a} ${yes(r.runner_kept_pace)}, ${b} ${yes(r.reference_kept_pace)}`;
  const rows: [string, RatioSpread | null][] = [
    ["CPU per request", r.cpu_per_request],
    ["CPU per request, steady window", r.window_cpu_per_request],
    ["p99 send lag", r.p99_lag],
    ["max send lag", r.max_lag],
  ];
  return rows.filter((p): p is [string, RatioSpread] => p[1] !== null)
    .map(([name, x], i) =>
      `| ${i === 0 ? r.rate : ""} | ${name}, ${a} / ${b} | ${x.rounds.map((y) => f(y, 2)).join(", ")} | ${
        f(x.median, 2)
      } | ` +
      `${f(x.min, 2)}–${f(x.max, 2)} | ${i === 0 ? pace : ""} |`
    ).join("\n");
}

const started = new Date().toISOString();
const bin = await buildReferenceSender(go, v.out!);
const dir = Deno.makeTempDirSync({ prefix: "reference-bench-" });
const workload = writeWorkload(dir, [tinyCase()]);
const request = runnerRequest(tinyCase());
const server = await startStaticServer(v.server!);
const target = server.url.origin;
const url = server.url.href;
const steps: Step[] = [];
console.error(
  `runner${runnerWorkers > 1 ? ` (--workers ${runnerWorkers})` : ""} vs reference_sender (${go}), ${v.server} at ` +
    `${target}, 1 s warm-up + ${seconds} s steady, ${rounds} rounds`,
);
try {
  const plans = new Map<number, { plan: string; schedule: string }>();
  for (const rate of rates) {
    const plan = warmupSteadyPlan(dir, `s${rate}`, rate, seconds);
    plans.set(rate, { plan, schedule: await saveRunnerSchedule(plan, workload, join(dir, `s${rate}`)) });
  }
  // The steady stage less 0.5 s at each end: CPU per request with start-up and the end left out.
  const cpuWindowMs = [1500, 500 + seconds * 1000] as const;
  const inWindow = (schedule: string) =>
    Deno.readTextFileSync(schedule).split("\n").slice(1).filter((l) => {
      const t = Number(l.split(",")[1]);
      return l !== "" && t >= cpuWindowMs[0] && t < cpuWindowMs[1];
    }).length;
  for (let round = 1; round <= rounds; round++) {
    for (const rate of rates) {
      const { plan, schedule } = plans.get(rate)!;
      const turn = (round - 1) % senders.length;
      for (const sender of [...senders.slice(turn), ...senders.slice(0, turn)]) {
        const load_before = load1();
        const server0 = processCpuMs(server.pid);
        const serverCpu = () => {
          const now = processCpuMs(server.pid);
          return server0 === null || now === null ? null : now - server0;
        };
        const base = { sender, rate, round, load_before };
        // One run id for both: it is in every request's idempotency key, so both send the same bytes.
        const runId = `r${rate}-${round}`;
        let step: Step;
        if (sender === "runner") {
          const r = await runRunnerStep({
            workload,
            plan,
            target,
            out: dir,
            runId,
            cpuWindowMs,
            workers: runnerWorkers,
          });
          // The runner's saved schedule must be the one the reference sends (with workers: its shards' together).
          const same = r.schedules.length === 1
            ? await sha256(r.schedules[0]!) === await sha256(schedule)
            : sameArrivals(r.schedules, schedule);
          if (!same) throw new Error(`the runner's schedule at ${rate} req/s differs from the reference's`);
          step = {
            ...base,
            requests: r.requests,
            ok: r.ok,
            not_sent: r.not_sent,
            failed: r.requests - r.ok - r.not_sent,
            cpu_ms: r.cpu_ms,
            p50_ms: r.steady.p50_ms,
            p99_ms: r.steady.p99_ms,
            max_ms: r.steady.max_ms,
            completed_rps: r.completed_rps,
            peak_rss_mb: r.peak_rss_bytes === null ? null : r.peak_rss_bytes / 2 ** 20,
            window_cpu_ms: r.window_cpu_ms,
            window_requests: inWindow(schedule),
            server_cpu_ms: serverCpu(),
            load_after: load1(),
          };
          Deno.removeSync(r.dir, { recursive: true });
        } else {
          const rows = join(dir, `${sender}-${rate}-${round}.csv`);
          const s = await runReferenceSender(
            sender === "reference" ? bin : floorSenderCommand(sender === "floor-parse"),
            {
              schedule,
              url,
              request,
              rows,
              runId,
              cpuWindowMs,
            },
          );
          step = {
            ...base,
            requests: s.n,
            ok: s.ok,
            not_sent: s.not_sent,
            failed: s.failed,
            cpu_ms: s.cpu_user_ms + s.cpu_sys_ms,
            p50_ms: s.send_lag_p50_ms ?? NaN,
            p99_ms: s.send_lag_p99_ms ?? NaN,
            max_ms: s.send_lag_max_ms ?? NaN,
            completed_rps: s.completed_rps,
            peak_rss_mb: s.peak_rss_bytes === null ? null : s.peak_rss_bytes / 2 ** 20,
            window_cpu_ms: s.window_cpu_ms ?? null,
            window_requests: inWindow(schedule),
            server_cpu_ms: serverCpu(),
            load_after: load1(),
          };
          Deno.removeSync(rows);
          Deno.removeSync(`${rows}.body.json`);
        }
        steps.push(step);
        console.error(stepLine(step));
      }
    }
  }
} finally {
  await server.stop();
  Deno.removeSync(dir, { recursive: true });
}

/** The pairs compared, those of the senders run: the issue's ratio, then what the runner adds, then the runtime. */
const pairs = ([
  ["runner", "reference"],
  ["runner", "floor"],
  ["floor", "reference"],
  ["runner", "floor-parse"],
  ["floor-parse", "reference"],
] as const)
  .filter(([a, b]) => senders.includes(a) && senders.includes(b));
const ratios = pairs.map(([a, b]) => ({
  a,
  b,
  rates: rateRatios(steps.filter((s) => s.sender === a), steps.filter((s) => s.sender === b)),
}));
const finished = new Date().toISOString();
console.log(
  `\n${started} – ${finished}, ${rounds} rounds, 1 s warm-up + ${seconds} s steady per step` +
    `${runnerWorkers > 1 ? `, the runner as --workers ${runnerWorkers}` : ""}\n`,
);
console.log(STEP_HEAD);
for (const s of steps) console.log(stepLine(s));
console.log(`\n${RATIO_HEAD}`);
for (const p of ratios) for (const r of p.rates) console.log(ratioLine(r, p.a, p.b));
const file = join(v.out!, `reference_bench-${started.replace(/[:.]/g, "-")}.json`);
Deno.writeTextFileSync(
  file,
  JSON.stringify(
    {
      started,
      finished,
      rates,
      rounds,
      seconds,
      server: v.server,
      senders,
      runner_workers: runnerWorkers,
      go,
      pace_share: PACE_SHARE,
      steps,
      ratios,
    },
    null,
    2,
  ),
);
console.log(`\n${file}`);
