/**
 * What one wake-up costs this machine, with no work around it: a process that only sleeps until each due time of a
 * constant rate and wakes, for `--seconds`, its CPU time (user + system, all threads) ÷ wake-ups. Three sleepers,
 * each in a fresh process, interleaved over `--rounds`:
 * - `python-sleep`: a Python loop of `time.sleep` (one `clock_nanosleep` per wake-up: the floor for any process);
 * - `setTimeout`: Deno's timer (`timeoutTimers()` of runner/dispatch_timers.ts);
 * - `waker`: the dispatcher's waker thread (`WakerTimers`: `Atomics.wait` in a worker, a message to the event loop);
 * - with `--kinds`, also `node-setTimeout` (the same loop on Node's timer: is it Deno's cost, or any V8 runtime's?) and
 *   `K@flag` (sleeper K of Deno with `--v8-flags=--flag`, e.g. `setTimeout@single-threaded`: do V8's own threads
 *   make the difference?).
 * The runner wakes at least once for each request it sends (at low rates) and again to read its answer, so this is a
 * floor under its CPU per request (bench/README.md, "Paying only for work").
 *
 *   deno run -A bench/wake_cost_bench.ts [--rates 20,100,1000] [--seconds 5] [--rounds 3]
 *     [--kinds python-sleep,setTimeout,waker,node-setTimeout,setTimeout@single-threaded]
 *
 * @module
 */
import { parseArgs } from "node:util";
import { timeoutTimers, WakerTimers } from "../runner/dispatch_timers.ts";

const { values: v } = parseArgs({
  args: Deno.args,
  options: {
    rates: { type: "string", default: "20,100,1000" },
    seconds: { type: "string", default: "5" },
    rounds: { type: "string", default: "3" },
    kinds: { type: "string", default: "python-sleep,setTimeout,waker" },
    child: { type: "string" },
    rate: { type: "string" },
  },
});
const seconds = Number(v.seconds);

/** In a child: sleeps `rate` times a second for `seconds` on `kind`'s timer; prints `{ wakes, cpu_ms }`. */
async function child(kind: string, rate: number): Promise<void> {
  const timers = kind === "waker" ? await WakerTimers.start() : timeoutTimers();
  const cpu = () => {
    const c = process.cpuUsage();
    return (c.user + c.system) / 1000;
  };
  const gap = 1000 / rate;
  let wakes = 0;
  const t0 = performance.now();
  const c0 = cpu();
  await new Promise<void>((done) => {
    const next = () => {
      if (performance.now() - t0 >= seconds * 1000) return done();
      wakes++;
      timers.after(Math.max(0, t0 + wakes * gap - performance.now()), next);
    };
    next();
  });
  const cpu_ms = cpu() - c0;
  if (timers instanceof WakerTimers) timers.close();
  console.log(JSON.stringify({ wakes, cpu_ms }));
}

const PYTHON = `
import resource, sys, time, json
rate, seconds = float(sys.argv[1]), float(sys.argv[2])
cpu = lambda: sum(resource.getrusage(resource.RUSAGE_SELF)[:2]) * 1000
t0, c0, wakes = time.perf_counter(), cpu(), 0
while time.perf_counter() - t0 < seconds:
    wakes += 1
    d = t0 + wakes / rate - time.perf_counter()
    if d > 0: time.sleep(d)
print(json.dumps({"wakes": wakes, "cpu_ms": cpu() - c0}))
`;

const NODE = `
const [rate, seconds] = process.argv.slice(1).map(Number);
const cpu = () => { const c = process.cpuUsage(); return (c.user + c.system) / 1000; };
const t0 = performance.now(), c0 = cpu();
let wakes = 0;
const next = () => {
  if (performance.now() - t0 >= seconds * 1000) {
    return console.log(JSON.stringify({ wakes, cpu_ms: cpu() - c0 }));
  }
  wakes++;
  setTimeout(next, Math.max(0, t0 + wakes * (1000 / rate) - performance.now()));
};
next();
`;

/** The sleepers `--kinds` may name; `K@flag` is Deno's sleeper K with `--v8-flags=--flag`. */
const KINDS = ["python-sleep", "node-setTimeout", "setTimeout", "waker"];

async function measure(kind: string, rate: number): Promise<{ wakes: number; cpu_ms: number }> {
  const [base, flag] = kind.split("@");
  const [cmd, args] = kind === "python-sleep"
    ? ["python3", ["-c", PYTHON, String(rate), String(seconds)]]
    : kind === "node-setTimeout"
    ? ["node", ["-e", NODE, String(rate), String(seconds)]]
    : [Deno.execPath(), [
      "run",
      "-A",
      ...(flag ? [`--v8-flags=--${flag}`] : []),
      new URL(import.meta.url).pathname,
      "--child",
      base!,
      "--rate",
      String(rate),
      "--seconds",
      String(seconds),
    ]];
  const out = await new Deno.Command(cmd, { args, stdout: "piped", stderr: "piped" }).output();
  if (!out.success) throw new Error(`${kind} at ${rate}/s failed: ${new TextDecoder().decode(out.stderr)}`);
  return JSON.parse(new TextDecoder().decode(out.stdout).trim().split("\n").at(-1)!);
}

if (v.child) {
  await child(v.child, Number(v.rate));
} else {
  const rates = v.rates!.split(",").map(Number);
  const rounds = Number(v.rounds);
  const kinds = v.kinds!.split(",");
  const badKind = kinds.find((k) => {
    const [base, flag] = k.split("@");
    return !KINDS.includes(base!) ||
      (flag !== undefined && (!/^[a-z0-9-]+(=[0-9]+)?$/.test(flag) || !["setTimeout", "waker"].includes(base!)));
  });
  if (
    rates.some((r) => !(r > 0 && r <= 10_000)) || !(seconds >= 1 && seconds <= 60) || !(rounds >= 1) ||
    badKind !== undefined
  ) {
    console.error(
      `wake_cost_bench: --rates in (0, 10000], --seconds in [1, 60], --rounds ≥ 1, --kinds of ${KINDS.join(", ")} ` +
        `(setTimeout and waker also as K@v8-flag)${badKind !== undefined ? `; not a sleeper: ${badKind}` : ""}`,
    );
    Deno.exit(2);
  }
  const load = () => Deno.readTextFileSync("/proc/loadavg").split(" ")[0];
  console.log(`wake-up cost, ${seconds} s per run, ${rounds} round(s), ${new Date().toISOString()}, load ${load()}`);
  const got = new Map<string, number[]>();
  for (let r = 1; r <= rounds; r++) {
    for (const rate of rates) {
      for (const kind of kinds) {
        const m = await measure(kind, rate);
        const us = (m.cpu_ms / m.wakes) * 1000;
        got.set(`${rate} ${kind}`, [...(got.get(`${rate} ${kind}`) ?? []), us]);
        console.log(
          `round ${r}: ${kind} at ${rate}/s: ${m.wakes} wake-ups, ${us.toFixed(0)} µs of CPU each (load ${load()})`,
        );
      }
    }
  }
  console.log("\n| rate/s | sleeper | CPU µs per wake-up, median [min–max] |\n| ---: | --- | --- |");
  for (const rate of rates) {
    for (const kind of kinds) {
      const xs = [...got.get(`${rate} ${kind}`)!].sort((a, b) => a - b);
      const med = xs[(xs.length - 1) >> 1]!;
      console.log(`| ${rate} | ${kind} | ${med.toFixed(0)} [${xs[0]!.toFixed(0)}–${xs.at(-1)!.toFixed(0)}] |`);
    }
  }
  console.log(`load ${load()} at the end`);
}
