/**
 * How late the dispatcher's timers fire on this machine, and what a wake-up costs: `setTimeout(d)` and the waker
 * thread's `after(d)` (runner/dispatch_timers.ts) for several delays, each asked `--n` times in a row at a random
 * phase (0–1 ms of polling before each ask), and one `setImmediate` turn. Lateness = fired − asked − d (ms),
 * nearest-rank percentiles; CPU = this process's user + system time (all threads) per wake-up.
 *
 *   deno run -A bench/timer_bench.ts [--delays 0,0.5,1,3,10] [--n 300]
 *
 * @module
 */
import { parseArgs } from "node:util";
import { setImmediate } from "node:timers";
import { type DispatchTimers, timeoutTimers, WakerTimers } from "../runner/dispatch_timers.ts";

const { values: v } = parseArgs({
  args: Deno.args,
  options: { delays: { type: "string", default: "0,0.5,1,3,10" }, n: { type: "string", default: "300" } },
});
const delays = v.delays!.split(",").map(Number);
const n = Number(v.n);
if (delays.some((d) => !(d >= 0 && d <= 100)) || !(n >= 10 && n <= 10_000)) {
  console.error("timer_bench: --delays in [0, 100] ms, --n in [10, 10000]");
  Deno.exit(2);
}
const rank = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.ceil(p * xs.length) - 1]!;
const cpu = () => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
};

async function lateness(timers: DispatchTimers, d: number) {
  const late: number[] = [];
  let spent = 0;
  for (let k = 0; k < n; k++) {
    const phase = Math.random();
    for (const s = performance.now(); performance.now() - s < phase;);
    const c0 = cpu();
    const t0 = performance.now();
    const fired = await new Promise<number>((r) => timers.after(d, () => r(performance.now())));
    spent += cpu() - c0;
    late.push(fired - t0 - d);
  }
  return { late, cpuUs: spent / n * 1000 };
}

const waker = await WakerTimers.start();
console.log(
  `timer lateness, ${n} wake-ups each, ${new Date().toISOString()}, loadavg ${
    Deno.readTextFileSync("/proc/loadavg").trim()
  }`,
);
console.log("| timer | d (ms) | late p10 | p50 | p90 | p99 | max (ms) | CPU µs / wake-up |");
console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
try {
  for (const d of delays) {
    for (const [name, timers] of [["setTimeout", timeoutTimers()], ["waker", waker]] as const) {
      const { late, cpuUs } = await lateness(timers, d);
      const q = (p: number) => rank(late, p).toFixed(3);
      console.log(
        `| ${name} | ${d} | ${q(0.1)} | ${q(0.5)} | ${q(0.9)} | ${q(0.99)} | ${Math.max(...late).toFixed(3)} | ${
          cpuUs.toFixed(0)
        } |`,
      );
    }
  }
} finally {
  waker.close();
}
const turns: number[] = [];
const c0 = cpu();
for (let k = 0, t = performance.now(); k < 20_000; k++) {
  await new Promise((r) => setImmediate(r));
  const now = performance.now();
  turns.push(now - t);
  t = now;
}
console.log(
  `\nsetImmediate turn: p50 ${(rank(turns, 0.5) * 1000).toFixed(1)} µs, p99 ${
    (rank(turns, 0.99) * 1000).toFixed(1)
  } µs, ` +
    `CPU ${((cpu() - c0) / 20_000 * 1000).toFixed(1)} µs per turn`,
);
