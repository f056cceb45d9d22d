/**
 * One run of the whole runner (`runLoadTest`, as the `run` CLI calls it, without the pre-flight probe) with a
 * chosen dispatcher wait, for bench/dispatch_bench.ts. Its one argument is a JSON object:
 * `{ workload, plan, target, out, runId, timers: "waker" | "timeout", leadMs, spinMaxMs, readsMaxMs, spinShare, reads }`
 * (`spinShare` null: no bound).
 *
 * @module
 */
import { runLoadTest } from "../runner/run.ts";

const a = JSON.parse(Deno.args[0]!);
await runLoadTest({
  workload: a.workload,
  plan: a.plan,
  target: a.target,
  out: a.out,
  runId: a.runId,
  formats: ["csv"],
  progress: false,
  serverTimeline: false,
  lagLimitMs: 1,
  dispatch: {
    timers: a.timers,
    wait: { leadMs: a.leadMs, spinMaxMs: a.spinMaxMs, readsMaxMs: a.readsMaxMs, spinShare: a.spinShare ?? Infinity },
    reads: a.reads,
  },
});
