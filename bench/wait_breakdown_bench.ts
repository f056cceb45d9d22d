/**
 * Where the wait went, timed: on a generated run log of `--n` requests (bench/_gen_log.ts), the time of
 * `waitBreakdown` beside `goodput` and the latency table of the same loaded run, `--reps` times each, and the
 * process's peak RSS. `npx deno run -A bench/wait_breakdown_bench.ts --n 100000`.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { goodput } from "../analysis/goodput/goodput.ts";
import { loadSloPolicy, runWindow } from "../analysis/goodput/policy.ts";
import { latencyInWindow } from "../analysis/latency/latency.ts";
import { waitBreakdown } from "../analysis/latency/wait_breakdown.ts";
import { loadRun } from "../analysis/run/load_run.ts";
import { generateRunLog } from "./_gen_log.ts";

const { values: args } = parseArgs({
  args: Deno.args,
  options: {
    n: { type: "string", default: "100000" },
    reps: { type: "string", default: "3" },
    slo: { type: "string", default: "data/slo/design-v1.json" },
  },
});
const n = Number(args.n);
const run = await loadRun(generateRunLog(`${Deno.makeTempDirSync()}/run`, n), { onWarning: () => {} });
const policy = await loadSloPolicy(args.slo);
const time = (f: () => unknown) => {
  const t = performance.now();
  f();
  return performance.now() - t;
};
for (let rep = 1; rep <= Number(args.reps); rep++) {
  const g = time(() => goodput(run, policy));
  const l = time(() => latencyInWindow(run, runWindow(run, policy.window)));
  let tasks = 0;
  const w = time(() => (tasks = waitBreakdown(run, policy).disclosure.n.completed));
  console.log(
    `rep ${rep}: ${n} requests (${tasks} completed tasks split): goodput ${g.toFixed(0)} ms, latency table ` +
      `${l.toFixed(0)} ms, waitBreakdown ${w.toFixed(0)} ms`,
  );
}
const hwm = /VmHWM:\s+(\d+) kB/.exec(Deno.readTextFileSync("/proc/self/status"));
console.log(
  `peak RSS ${hwm ? (Number(hwm[1]) / 1024).toFixed(0) : "?"} MB (the generated log and the loaded run included)`,
);
