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
import { runRunnerStep, startServer, startStaticResponder } from "./_runner_step.ts";
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
  : await startStaticResponder();
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
    const plan = warmupSteadyPlan(dir, `s${rate}`, rate, seconds);
    const r = await runRunnerStep({ workload, plan, target, out: dir, runId, client: v.client! })
      .catch((err: Error) => (console.error(err.message), null));
    if (r === null) break;
    const q = r.steady;
    console.log(
      `| ${rate} | ${r.requests} | ${r.ok} | ${r.not_sent} | ` +
        `${q.p50_ms.toFixed(3)} / ${q.p99_ms.toFixed(3)} / ${q.max_ms.toFixed(3)} | ${r.whole_p99_ms.toFixed(3)} | ` +
        `${r.completed_rps.toFixed(0)} | ${(r.cpu_ms / r.requests * 1000).toFixed(0)} | ` +
        `${(r.peak_rss_bytes! / 2 ** 20).toFixed(0)} |`,
    );
    Deno.removeSync(join(dir, runId), { recursive: true });
  }
} finally {
  await server.stop();
  Deno.removeSync(dir, { recursive: true });
}
