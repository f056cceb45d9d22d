/**
 * Measures a profile's capacity for a workload: for each offered rate, a
 * fresh in-process sim gets seeded Poisson arrivals (classes equally
 * weighted, tool rounds replayed with the frozen tool responses) for
 * `--duration-s`, then drains. Prints, per rate, completions per second,
 * shed and error counts and the share of requests finished within their
 * class deadline.
 *
 *   deno run -A sim/capacity_probe.ts [--profile data/sim/default.json]
 *     [--workload data/workloads/design-v1] [--rates 4,6,8,10,12] [--duration-s 30] [--seed 1]
 * @module
 */
import { parseArgs } from "node:util";
import { EXIT_BAD_INPUT, InputError, loadSimProfile, type WorkloadCase } from "../schema/mod.ts";
import { loadWorkload } from "../schema/workload_file.ts";
import { createPrng } from "./prng.ts";
import { startSim } from "./server.ts";

/** One measured rate. */
export interface ProbeRow {
  offered_rps: number;
  offered: number;
  completed: number;
  on_time: number;
  shed: number;
  errors: number;
  goodput_rps: number;
  p50_ms: number;
  p95_ms: number;
  /** Late or failed requests per class, `class:n` pairs. */
  missed_by_class: string;
}

type Msg = Record<string, unknown>;

async function oneRequest(url: string, c: WorkloadCase): Promise<{ status: number; ms: number }> {
  const t0 = performance.now();
  const messages: Msg[] = c.messages.map((m) => ({ ...m }));
  for (let round = 0; round <= c.tool_calls_expected.length; round++) {
    const r = await fetch(`${url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "sim-llm", messages, max_tokens: c.max_output_tokens, stream: false }),
    });
    const body = await r.json();
    if (r.status !== 200) return { status: r.status, ms: performance.now() - t0 };
    const msg = body.choices[0].message;
    const call = msg.tool_calls?.[0];
    if (!call) break;
    const frozen = c.tool_responses.find((t) => t.name === call.function.name);
    await new Promise((res) => setTimeout(res, frozen?.latency_ms ?? 0));
    messages.push({ role: "assistant", content: null, tool_calls: msg.tool_calls });
    messages.push({ role: "tool", tool_call_id: call.id, content: frozen?.content ?? "{}" });
  }
  return { status: 200, ms: performance.now() - t0 };
}

async function main(args: string[]): Promise<void> {
  const { values: v } = parseArgs({
    args,
    strict: true,
    options: {
      profile: { type: "string", default: "data/sim/default.json" },
      workload: { type: "string", default: "data/workloads/design-v1" },
      rates: { type: "string", default: "4,6,8,10,12" },
      "duration-s": { type: "string", default: "30" },
      seed: { type: "string", default: "1" },
    },
  });
  const rates = v.rates.split(",").map(Number);
  const duration = Number(v["duration-s"]);
  if (rates.some((r) => !(r > 0)) || !(duration > 0)) throw new InputError("--rates and --duration-s must be positive");
  const profile = await loadSimProfile(v.profile);
  const loaded = await loadWorkload(v.workload);
  const deadline = (c: WorkloadCase) => loaded.classDefaults.classes[c.class]?.deadline_ms ?? Infinity;
  const byClass = Object.values(Object.groupBy(loaded.workload.cases, (c) => c.class)) as WorkloadCase[][];
  console.log("offered_rps\toffered\tcompleted\ton_time\tshed\terrors\tgoodput_rps\tp50_ms\tp95_ms\tmissed_by_class");
  for (const rate of rates) {
    const sim = await startSim({ profile, workload: loaded, seed: Number(v.seed), quiet: true });
    const rng = createPrng(Number(v.seed) + rate);
    const jobs: Promise<{ status: number; ms: number; c: WorkloadCase }>[] = [];
    const t0 = performance.now();
    for (let t = 0; t < duration * 1000; t += -Math.log(1 - rng()) * 1000 / rate) {
      const wait = t0 + t - performance.now();
      if (wait > 0) await new Promise((res) => setTimeout(res, wait));
      const cls = byClass[Math.floor(rng() * byClass.length)]!;
      const c = cls[Math.floor(rng() * cls.length)]!;
      jobs.push(oneRequest(sim.url, c).then((r) => ({ ...r, c })));
    }
    const done = await Promise.all(jobs);
    await sim.stop();
    const ok = done.filter((d) => d.status === 200);
    const onTime = ok.filter((d) => d.ms <= deadline(d.c)).length;
    const ms = ok.map((d) => d.ms).sort((a, b) => a - b);
    const q = (p: number) => Math.round(ms[Math.min(ms.length - 1, Math.floor(p * ms.length))] ?? NaN);
    const row: ProbeRow = {
      offered_rps: rate,
      offered: done.length,
      completed: ok.length,
      on_time: onTime,
      shed: done.filter((d) => d.status === 429).length,
      errors: done.filter((d) => d.status >= 500).length,
      goodput_rps: Math.round(onTime / duration * 100) / 100,
      p50_ms: q(0.5),
      p95_ms: q(0.95),
      missed_by_class: Object.entries(
        Object.groupBy(done.filter((d) => d.status !== 200 || d.ms > deadline(d.c)), (d) => d.c.class),
      ).map(([k, v]) => `${k}:${v!.length}`).join(",") || "-",
    };
    console.log(Object.values(row).join("\t"));
  }
}

if (import.meta.main) {
  try {
    await main(Deno.args);
  } catch (e) {
    if (!(e instanceof InputError) && !(e instanceof TypeError && /option|argument/i.test(e.message))) throw e;
    console.error((e as Error).message);
    Deno.exit(EXIT_BAD_INPUT);
  }
}
