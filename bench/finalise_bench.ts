/**
 * Finalisation at scale: a run folder of `--n` offered requests (requests,
 * attempts and tools CSV written by the runner's own `CsvSink`, rows drawn
 * by bench/_gen_log.ts `generateRows`; run.json as the runner leaves it
 * before finalising, both formats) is finalised by the real `finaliseRun`
 * — CSV → Parquet, client verdict, open-plan row count, sha256 of every
 * file — in a fresh process per repetition, with the V8 flags of
 * `deno task run`. Each repetition starts from a fresh copy of the CSV logs.
 * Reported per repetition: wall time of `finaliseRun`, the process's peak
 * RSS (VmHWM from /proc/self/status, read at the end) and its RSS before
 * finalising (the Deno runtime and the imports), plus `/usr/bin/time`'s
 * maximum RSS of the whole process as a cross-check when it is installed.
 *
 *   deno run -A bench/finalise_bench.ts [--n 1000000] [--runs 3] [--impl ROOT] [--out bench/out/finalise]
 *
 * `--impl ROOT` finalises with `ROOT/runner/finalise.ts` instead of this
 * checkout's: a tree of an earlier commit (e.g. `git archive b2a9e38 | tar
 * -x -C /tmp/old; ln -s $PWD/node_modules /tmp/old/`) measures the code
 * before it streamed. The generated folder is kept under `--out` and reused
 * by later invocations with the same `--n`.
 * @module
 */
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { RunManifest } from "../schema/run_manifest.ts";
import { CsvSink } from "../runner/sinks/csv_sink.ts";
import type { TableName } from "../schema/events.ts";
import { makeManifest } from "../testing/run_manifest.ts";
import { generateRows } from "./_gen_log.ts";

const ROOT = new URL("../", import.meta.url).pathname;
/** The V8 flags `deno task run` gives the runner, in whose process finalisation runs. */
const RUNNER_V8_FLAGS = "--v8-flags=--max-semi-space-size=64";
const LOGS = ["requests", "attempts", "tools"] as const;

const { values: v } = parseArgs({
  args: Deno.args,
  options: {
    n: { type: "string", default: "1000000" },
    runs: { type: "string", default: "3" },
    impl: { type: "string", default: ROOT },
    out: { type: "string", default: join(ROOT, "bench/out/finalise") },
    child: { type: "string" },
  },
});

/** VmHWM (peak) and VmRSS (now) of this process, in bytes. */
function memory(): { peak: number; rss: number } {
  const status = Deno.readTextFileSync("/proc/self/status");
  const kb = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+) kB`).exec(status)![1]) * 1024;
  return { peak: kb("VmHWM"), rss: kb("VmRSS") };
}

if (v.child) {
  // One repetition: finalise the folder with the implementation under --impl, print one JSON line.
  const { finaliseRun } = await import(join(resolve(v.impl!), "runner/finalise.ts"));
  const manifest = RunManifest.parse(JSON.parse(Deno.readTextFileSync(join(v.child, "run.json"))));
  const before = memory();
  const t0 = performance.now();
  const res = await finaliseRun(v.child, manifest, {
    clock: { now: () => manifest.result.ended_ms, epochUnixMs: 0 },
    targets: [],
    serverTimeline: false,
    interrupted: false,
    retries: 0,
    retryBudgetExhausted: 0,
    retryPastDeadline: 0,
    lagLimitMs: 5,
  });
  const wallMs = performance.now() - t0;
  const after = memory();
  console.log(JSON.stringify({
    wall_ms: wallMs,
    rss_before_bytes: before.rss,
    peak_rss_bytes: after.peak,
    offered: res.manifest.result.offered,
    files: Object.keys(res.manifest.files).length,
  }));
  Deno.exit(0);
}

const n = Number(v.n);
const runs = Number(v.runs);
if (!(Number.isInteger(n) && n > 0 && n <= 5_000_000) || !(Number.isInteger(runs) && runs > 0 && runs <= 10)) {
  console.error("finalise_bench: --n must be an integer in 1..5000000 and --runs in 1..10");
  Deno.exit(2);
}

/** Writes the CSV logs and the pre-finalise run.json of `n` requests into `dir`, unless already there. */
function generate(dir: string): void {
  if (exists(join(dir, "run.json"))) return;
  Deno.mkdirSync(dir, { recursive: true });
  const sinks = Object.fromEntries(
    LOGS.map((t) => [t, CsvSink.open(dir, t, { overwrite: true, epochMs: Date.parse("2026-01-01T00:00:00.000Z") })]),
  ) as {
    [K in (typeof LOGS)[number]]: CsvSink<K>;
  };
  let rows = 0;
  const flushEvery = (sink: CsvSink<TableName>) => sink.pending >= 10_000 && sink.flush();
  const stages = generateRows(n, 1, {
    requests: (r) => (sinks.requests.append(r), flushEvery(sinks.requests), rows++),
    attempts: (r) => (sinks.attempts.append(r), flushEvery(sinks.attempts)),
    tools: (r) => (sinks.tools.append(r), flushEvery(sinks.tools)),
  });
  for (const s of Object.values(sinks)) s.close();
  const base = makeManifest(stages);
  const manifest = RunManifest.parse({
    ...base,
    run_id: "bench-run",
    runner: { ...base.runner, name: "bench/finalise_bench.ts", formats: ["csv", "parquet"] },
    plan: { ...base.plan, scheduled_requests: rows },
    result: { ...base.result, ended_ms: stages[stages.length - 1]!.end_ms },
  });
  Deno.writeTextFileSync(join(dir, "run.json"), JSON.stringify(manifest, null, 2) + "\n");
}

function exists(p: string): boolean {
  try {
    Deno.statSync(p);
    return true;
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return false;
    throw e;
  }
}

const src = join(resolve(v.out!), `n${n}`, "src");
const g0 = performance.now();
generate(src);
const sizes = LOGS.map((t) => `${t}.csv ${(Deno.statSync(join(src, `${t}.csv`)).size / 1e6).toFixed(0)} MB`);
console.log(`run folder: ${src} (${sizes.join(", ")}; ready in ${((performance.now() - g0) / 1000).toFixed(1)} s)`);
const timeBin = exists("/usr/bin/time") ? "/usr/bin/time" : null;

console.log(
  `impl: ${resolve(v.impl!)}  n: ${n}  runs: ${runs}  load before: ${Deno.readTextFileSync("/proc/loadavg").trim()}`,
);
console.log("| run | wall s | peak RSS MB (VmHWM) | RSS before finalise MB | max RSS MB (/usr/bin/time) | files |");
console.log("| --: | -----: | ------------------: | ---------------------: | -------------------------: | ----: |");
const MB = 1024 * 1024;
for (let i = 1; i <= runs; i++) {
  const work = join(resolve(v.out!), `n${n}`, "work");
  if (exists(work)) Deno.removeSync(work, { recursive: true });
  Deno.mkdirSync(work, { recursive: true });
  for (const f of ["run.json", ...LOGS.map((t) => `${t}.csv`)]) Deno.copyFileSync(join(src, f), join(work, f));
  const deno = [Deno.execPath(), "run", RUNNER_V8_FLAGS, "-A", join(ROOT, "bench/finalise_bench.ts")];
  const args = [...deno, "--child", work, "--impl", resolve(v.impl!)];
  const cmd = timeBin
    ? new Deno.Command(timeBin, { args: ["-f", "maxrss_kb=%M", ...args] })
    : new Deno.Command(args[0]!, {
      args: args.slice(1),
    });
  const out = await cmd.output();
  const stdout = new TextDecoder().decode(out.stdout);
  const stderr = new TextDecoder().decode(out.stderr);
  if (!out.success) {
    console.error(stderr);
    throw new Error(`repetition ${i} failed (exit ${out.code})`);
  }
  const r = JSON.parse(stdout.trim().split("\n").at(-1)!);
  if (r.offered !== n) throw new Error(`repetition ${i}: offered ${r.offered}, expected ${n}`);
  const maxKb = /maxrss_kb=(\d+)/.exec(stderr)?.[1];
  console.log(
    `| ${i} | ${(r.wall_ms / 1000).toFixed(1)} | ${(r.peak_rss_bytes / MB).toFixed(0)} | ${
      (r.rss_before_bytes / MB).toFixed(0)
    } | ${maxKb ? (Number(maxKb) / 1024).toFixed(0) : "n/a"} | ${r.files} |`,
  );
  Deno.removeSync(work, { recursive: true });
}
console.log(`load after: ${Deno.readTextFileSync("/proc/loadavg").trim()}`);
