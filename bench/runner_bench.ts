/**
 * The runner's ceiling, open loop: the full runner CLI (`runner/cli/run.ts`,
 * dispatch + HTTP + SSE + checks + CSV log) at a ladder of rates against a
 * fast static SSE responder (64 events per answer) or the simulator, each in
 * its own process. Each rate runs as a staged plan: a 1 s `warmup` stage,
 * then a `steady` stage at the same rate. For each rate: send lag of the
 * steady stage and of the whole run, not_sent, completions, and the runner's
 * CPU time and peak RSS per 1,000 requests (from run.json).
 *
 *   deno run -A bench/runner_bench.ts [--rates 1000,2000,3000,5000] [--seconds 5]
 *     [--target static|sim] [--profile data/sim/fast.json] [--client raw|fetch]
 *
 * Bounded: each step sends at most rate × seconds requests to 127.0.0.1 and stops.
 * @module
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { readLogCsv } from "../runner/sinks/csv_read.ts";
import { tinyCase, warmupSteadyPlan, writeWorkload } from "../testing/tiny_workload.ts";

const ROOT = new URL("../", import.meta.url).pathname;
const { values: v } = parseArgs({
  args: Deno.args,
  options: {
    rates: { type: "string", default: "1000,2000,3000,5000" },
    seconds: { type: "string", default: "5" },
    target: { type: "string", default: "static" },
    profile: { type: "string", default: join(ROOT, "data/sim/fast.json") },
    client: { type: "string", default: "raw" },
  },
});
const rates = v.rates!.split(",").map(Number);
const seconds = Number(v.seconds);
if (rates.some((r) => !(r > 0)) || !(seconds > 0) || seconds * Math.max(...rates) > 200_000) {
  console.error("runner_bench: --rates must be positive and rate × seconds ≤ 200000");
  Deno.exit(2);
}

/** Starts a server process and waits for the port (or URL) it prints. */
async function startServer(args: string[], pattern: RegExp) {
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

const dir = Deno.makeTempDirSync({ prefix: "runner-bench-" });
const server = v.target === "sim"
  ? await startServer([
    "run",
    "-A",
    "--unstable-no-legacy-abort",
    join(ROOT, "sim/cli.ts"),
    "--port",
    "0",
    "--profile",
    v.profile!,
    "--workload",
    join(ROOT, "data/workloads/design-v1"),
    "--duration-s",
    String(Math.ceil(rates.length * (seconds + 15))),
  ], /(http:\/\/127\.0\.0\.1:\d+)/)
  : await startServer(
    ["run", "--allow-net=127.0.0.1", join(ROOT, "bench/static_sse_server.ts"), "--events", "64"],
    /"port":\s*(\d+)/,
  );
const target = v.target === "sim" ? server.url : `http://127.0.0.1:${server.url}`;
// The static responder answers anything; the simulator needs design-v1's prompts.
const workload = v.target === "sim" ? join(ROOT, "data/workloads/design-v1") : writeWorkload(dir, [tinyCase()]);

console.log(
  `runner ceiling vs ${v.target} (${target}), ${seconds} s per rate, client ${v.client}, ${new Date().toISOString()}`,
);
console.log(
  "| offered rps | requests | ok | not_sent | send lag p50 / p99 / max (ms) | whole-run p99 (ms) | completed rps | CPU ms / 1k req | peak RSS MB |",
);
console.log("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
try {
  for (const rate of rates) {
    const runId = `r${rate}`;
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        // As in `deno task run`: a larger young generation means fewer scavenge pauses.
        "--v8-flags=--max-semi-space-size=64",
        join(ROOT, "runner/cli/run.ts"),
        "--workload",
        workload,
        "--plan",
        warmupSteadyPlan(dir, `s${rate}`, rate, seconds),
        "--target",
        target,
        "--out",
        dir,
        "--run-id",
        runId,
        "--format",
        "csv",
        "--no-progress",
        "--no-server-timeline",
        "--http-client",
        v.client!,
        "--lag-limit-ms",
        "1",
      ],
      stdout: "null",
      stderr: "piped",
    }).output();
    if (out.code !== 0) {
      console.error(new TextDecoder().decode(out.stderr));
      break;
    }
    const manifest = JSON.parse(Deno.readTextFileSync(join(dir, runId, "run.json")));
    const rows = await readLogCsv(join(dir, runId, "requests.csv"), "requests");
    const lagsOf = (rs: typeof rows) =>
      rs.map((r) => r.send_lag_ms).filter((x): x is number => x !== null).sort((a, b) => a - b);
    const all = lagsOf(rows);
    const lags = lagsOf(rows.filter((r) => r.stage === "steady"));
    // Nearest-rank percentiles.
    const rank = (xs: number[], p: number) => xs[Math.min(xs.length - 1, Math.ceil(p * xs.length) - 1)] ?? NaN;
    const q = (p: number) => rank(lags, p);
    const done = rows.filter((r) => r.completed_ms !== null);
    const span = Math.max(...done.map((r) => r.completed_ms!)) - Math.min(...rows.map((r) => r.scheduled_ms));
    const res = manifest.result;
    console.log(
      `| ${rate} | ${rows.length} | ${rows.filter((r) => r.outcome === "ok").length} | ${res.not_sent} | ` +
        `${q(0.5).toFixed(3)} / ${q(0.99).toFixed(3)} / ${lags.at(-1)!.toFixed(3)} | ${rank(all, 0.99).toFixed(3)} | ` +
        `${(done.length / (span / 1000)).toFixed(0)} | ${(res.runner_cpu_ms / rows.length * 1000).toFixed(0)} | ` +
        `${(res.runner_peak_rss_bytes / 2 ** 20).toFixed(0)} |`,
    );
    Deno.removeSync(join(dir, runId), { recursive: true });
  }
} finally {
  await server.stop();
  Deno.removeSync(dir, { recursive: true });
}
