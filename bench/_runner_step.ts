/**
 * One step of the runner benches: the full runner CLI (`runner/cli/run.ts`) in its own process on one plan against
 * one target, and the figures the benches print from its log and run.json. Shared by bench/runner_bench.ts and
 * bench/reference_bench.ts, so both run the runner the same way.
 *
 * @module
 */
import { join } from "node:path";
import { readLogCsv } from "../runner/sinks/csv_read.ts";

const ROOT = new URL("../", import.meta.url).pathname;

/** A server process started by {@linkcode startServer}. */
export interface StartedServer {
  /** The first group of the pattern the server printed (a port or a URL). */
  url: string;
  stop(): Promise<unknown>;
}

/** Starts `deno ARGS` and waits for the port (or URL) it prints: the first group of `pattern`. */
export async function startServer(args: string[], pattern: RegExp): Promise<StartedServer> {
  const child = new Deno.Command(Deno.execPath(), { args, stdout: "piped", stderr: "inherit" }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`server exited: ${seen}`);
    seen += value;
    const m = pattern.exec(seen);
    if (m) {
      (async () => {
        while (!(await reader.read()).done);
      })();
      return { url: m[1]!, stop: async () => (child.kill("SIGTERM"), await child.status) };
    }
  }
}

/** The static SSE responder (bench/static_sse_server.ts, 64 events per answer) in its own process; `url` is its port. */
export function startStaticResponder(): Promise<StartedServer> {
  return startServer(
    ["run", "--allow-net=127.0.0.1", join(ROOT, "bench/static_sse_server.ts"), "--events", "64"],
    /"port":\s*(\d+)/,
  );
}

/** Options of {@linkcode runRunnerStep}. */
export interface RunnerStepOptions {
  workload: string;
  plan: string;
  target: string;
  /** The runner's `--out`: the run folder is `<out>/<runId>`. */
  out: string;
  runId: string;
  /** `--http-client`. @default "raw" */
  client?: string;
  /**
   * `--workers`: above 1 the run is that many runner processes (docs/runner.md, "Use every core"), its figures those of
   * all the shards together, and its CPU the parent's and the workers' (this process's reaped children's CPU, from
   * /proc/self/stat, across the step). @default 1
   */
  workers?: number;
  /**
   * [from, to] ms after the run's ms 0 (run.json `epoch_iso`, written at ms 0): `window_cpu_ms` is the process's CPU
   * time in between, read from /proc/PID/stat at those instants (clock-tick resolution).
   */
  cpuWindowMs?: readonly [number, number];
}

/** What the benches print of one runner step. */
export interface RunnerStepResult {
  requests: number;
  ok: number;
  not_sent: number;
  /** Nearest-rank send lag over the `steady` stage. */
  steady: LagStats;
  /** Nearest-rank p99 send lag over the whole run. */
  whole_p99_ms: number;
  /** Answered requests per second, from the first scheduled time to the last completion. */
  completed_rps: number;
  /** The runner process's user + system CPU over its life (run.json `result.runner_cpu_ms`). */
  cpu_ms: number;
  peak_rss_bytes: number | null;
  /** With `cpuWindowMs`: the process's CPU time in that stretch of the run (null when it ended first). */
  window_cpu_ms: number | null;
  /** The run folder (the log, run.json, schedule.csv; with workers, one shard folder each). */
  dir: string;
  /** The schedule.csv of each shard folder (one without workers). */
  schedules: string[];
}

const TICK_MS = 1000 /
  Number(new TextDecoder().decode(new Deno.Command("getconf", { args: ["CLK_TCK"] }).outputSync().stdout));

/** User + system CPU time of a live process, all its threads, ms (clock-tick resolution); null once it is gone. */
export function processCpuMs(pid: number): number | null {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(f[11]) + Number(f[12])) * TICK_MS;
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return null;
    throw e;
  }
}

/** The CPU time of this process's children that it has waited for (they and theirs, reaped), ms (clock ticks). */
export function reapedChildrenCpuMs(): number {
  const stat = Deno.readTextFileSync("/proc/self/stat");
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(f[13]) + Number(f[14])) * TICK_MS;
}

/** The CPU time of live process `pid` and of its live descendants, ms; null once `pid` is gone. */
export function treeCpuMs(pid: number): number | null {
  const own = processCpuMs(pid);
  if (own === null) return null;
  const parents = new Map<number, number[]>();
  for (const e of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(e.name)) continue;
    try {
      const stat = Deno.readTextFileSync(`/proc/${e.name}/stat`);
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      parents.set(ppid, [...(parents.get(ppid) ?? []), Number(e.name)]);
    } catch { /* exited while listed */ }
  }
  let total = own;
  const unvisited = [...(parents.get(pid) ?? [])];
  for (let child = unvisited.pop(); child !== undefined; child = unvisited.pop()) {
    total += processCpuMs(child) ?? 0;
    unvisited.push(...(parents.get(child) ?? []));
  }
  return total;
}

/**
 * The CPU time of process `pid` (and with `tree`, its descendants) between `fromMs` and `toMs` after the epoch the
 * run.json at `manifest` names at ms 0.
 */
async function windowCpu(pid: number, manifest: string, [fromMs, toMs]: readonly [number, number], tree = false) {
  let epoch = NaN;
  for (let k = 0; k < 1200 && Number.isNaN(epoch); k++) {
    await new Promise((r) => setTimeout(r, 25));
    try {
      epoch = Date.parse(JSON.parse(Deno.readTextFileSync(manifest)).epoch_iso);
    } catch { /* not written yet, or being written */ }
  }
  const at = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, epoch + ms - Date.now())));
  if (Number.isNaN(epoch)) return null;
  const cpu = tree ? treeCpuMs : processCpuMs;
  await at(fromMs);
  const c0 = cpu(pid);
  await at(toMs);
  const c1 = cpu(pid);
  return c0 === null || c1 === null ? null : c1 - c0;
}

/** Nearest-rank send-lag figures of one set of lags. */
export interface LagStats {
  n: number;
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
}

/**
 * The nearest-rank `p` quantile of ascending `sorted`: the element at rank ⌈p·n⌉ (NaN when empty).
 *
 * @example The 99th of 200 values is the 198th
 * ```ts
 * import { nearestRank } from "./_runner_step.ts";
 * import assert from "node:assert/strict";
 * const xs = Array.from({ length: 200 }, (_, i) => i + 1);
 * assert.equal(nearestRank(xs, 0.99), 198); // ⌈0.99 × 200⌉ = 198
 * assert.equal(nearestRank(xs, 0.5), 100);
 * assert.ok(Number.isNaN(nearestRank([], 0.5)));
 * ```
 */
export function nearestRank(sorted: readonly number[], p: number): number {
  return sorted[Math.max(0, Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1))] ?? NaN;
}

/**
 * p50, p99 and max (nearest rank) of the non-null `lags`.
 *
 * @example Nulls are left out
 * ```ts
 * import { lagStats } from "./_runner_step.ts";
 * import assert from "node:assert/strict";
 * assert.deepEqual(lagStats([3, null, 1, 2]), { n: 3, p50_ms: 2, p99_ms: 3, max_ms: 3 });
 * ```
 */
export function lagStats(lags: readonly (number | null)[]): LagStats {
  const xs = lags.filter((x): x is number => x !== null).sort((a, b) => a - b);
  return { n: xs.length, p50_ms: nearestRank(xs, 0.5), p99_ms: nearestRank(xs, 0.99), max_ms: xs.at(-1) ?? NaN };
}

/**
 * Runs the runner CLI as `deno task run` does (`--max-semi-space-size=64`), CSV log, no progress, no server timeline,
 * and reads back its rows and run.json. Throws with the runner's stderr when it exits non-zero.
 */
export async function runRunnerStep(o: RunnerStepOptions): Promise<RunnerStepResult> {
  const workers = o.workers ?? 1;
  const reaped0 = reapedChildrenCpuMs();
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      // As in `deno task run`: a larger young generation means fewer scavenge pauses.
      "--v8-flags=--max-semi-space-size=64",
      join(ROOT, "runner/cli/run.ts"),
      "--workload",
      o.workload,
      "--plan",
      o.plan,
      "--target",
      o.target,
      "--out",
      o.out,
      "--run-id",
      o.runId,
      "--format",
      "csv",
      "--no-progress",
      "--no-server-timeline",
      "--http-client",
      o.client ?? "raw",
      "--lag-limit-ms",
      "1",
      ...(workers > 1 ? ["--workers", String(workers)] : []),
    ],
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const dir = join(o.out, o.runId);
  const shards = workers > 1 ? Array.from({ length: workers }, (_, k) => join(dir, `shard-${k}-of-${workers}`)) : [dir];
  const [window_cpu_ms, out] = await Promise.all([
    o.cpuWindowMs ? windowCpu(child.pid, join(shards[0]!, "run.json"), o.cpuWindowMs, workers > 1) : null,
    child.output(),
  ]);
  if (out.code !== 0) throw new Error(`the runner exited with ${out.code}: ${new TextDecoder().decode(out.stderr)}`);
  const results = shards.map((d) => JSON.parse(Deno.readTextFileSync(join(d, "run.json"))).result);
  const rows = (await Promise.all(shards.map((d) => readLogCsv(join(d, "requests.csv"), "requests")))).flat();
  const done = rows.filter((r) => r.completed_ms !== null);
  const span = Math.max(...done.map((r) => r.completed_ms!)) - Math.min(...rows.map((r) => r.scheduled_ms));
  const rss = results.map((r) => r.runner_peak_rss_bytes as number | null);
  return {
    requests: rows.length,
    ok: rows.filter((r) => r.outcome === "ok").length,
    not_sent: results.reduce((n, r) => n + r.not_sent, 0),
    steady: lagStats(rows.filter((r) => r.stage === "steady").map((r) => r.send_lag_ms)),
    whole_p99_ms: lagStats(rows.map((r) => r.send_lag_ms)).p99_ms,
    completed_rps: done.length / (span / 1000),
    // One process: its own run.json figure. Workers: the parent's and every worker's, reaped by now.
    cpu_ms: workers > 1 ? reapedChildrenCpuMs() - reaped0 : results[0].runner_cpu_ms,
    peak_rss_bytes: rss.some((b) => b === null) ? null : Math.max(...(rss as number[])),
    window_cpu_ms,
    dir,
    schedules: shards.map((d) => join(d, "schedule.csv")),
  };
}

/** Whether the shards' schedule.csv files hold together the arrivals of `whole` (all but the `shard` column). */
export function sameArrivals(shards: string[], whole: string): boolean {
  const arrivals = (file: string) =>
    Deno.readTextFileSync(file).split("\n").slice(1).filter((l) => l !== "").map((l) => l.slice(0, l.lastIndexOf(",")));
  const a = shards.flatMap(arrivals).sort();
  const b = arrivals(whole).sort();
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
