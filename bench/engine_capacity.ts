/**
 * The engine's capacity measured apart from the runner: closed loop, as many requests in flight as the server has
 * slots, each worker sending its next request the moment its last one ends, for a fixed window after a warm-up.
 * Completions per second over the window is the saturation throughput the knee of an open-loop sweep should sit
 * near. The requests are design-v1 cases with typical inputs (by default the short classes), sent in case order,
 * not streamed, with the body the runner sends for a case's first round (tools, the output schema as
 * response_format, the case's max_tokens); `--no-prompt-cache` sends `cache_prompt: false` so that no request
 * reuses another's prefix from the server's KV cache. The machine's load (`/proc/loadavg`) is recorded before and
 * after: the cores are shared. Results and commands: docs/engine.md.
 *
 *     npx deno run -A bench/engine_capacity.ts --sizes tiny,small --seconds 60
 *
 * @module
 */
import { parseArgs } from "node:util";
import { defaultThreads, startEngine, stopEngine } from "../engine/mod.ts";
import { SIZE_NAMES, type SizeName } from "../engine/model.ts";
import { chatBody, type WireMessage } from "../runner/openai.ts";
import { loadWorkload } from "../schema/workload_file.ts";
import type { WorkloadCase } from "../schema/workload.ts";

const { values: flags } = parseArgs({
  options: {
    sizes: { type: "string", default: "tiny,small" },
    parallel: { type: "string", default: "8" },
    concurrency: { type: "string" },
    threads: { type: "string", default: String(defaultThreads()) },
    ctx: { type: "string", default: "65536" },
    port: { type: "string", default: "8795" },
    seconds: { type: "string", default: "60" },
    "warmup-s": { type: "string", default: "10" },
    classes: { type: "string", default: "short_qa,extract_json,tool_agent,safety" },
    workload: { type: "string", default: "data/workloads/design-v1" },
    "no-prompt-cache": { type: "boolean", default: false },
    json: { type: "boolean", default: false },
  },
});

interface Done {
  endMs: number;
  latencyMs: number;
  ok: boolean;
  prompt: number;
  completion: number;
  cached: number;
  finish: string;
  /** The error answer's status and first words, for a failed request. */
  error?: string;
}

function pct(sorted: number[], q: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]! : NaN;
}

function loadavg(): string {
  return Deno.readTextFileSync("/proc/loadavg").split(" ").slice(0, 3).join(" ");
}

/** The body the runner sends for the case's first round (runner/openai.ts), unstreamed. */
function body(c: WorkloadCase, cachePrompt: boolean): string {
  const json = chatBody(c, c.messages as WireMessage[], {
    model: "engine",
    stream: false,
    maxTokens: c.max_output_tokens,
  });
  return cachePrompt ? json : JSON.stringify({ ...JSON.parse(json), cache_prompt: false });
}

/** One closed-loop measurement against a running engine. */
async function measure(
  url: string,
  cases: WorkloadCase[],
  concurrency: number,
  warmupS: number,
  seconds: number,
  cachePrompt: boolean,
) {
  const t0 = performance.now();
  const endAt = t0 + (warmupS + seconds) * 1000;
  const done: Done[] = [];
  let next = 0;
  const worker = async () => {
    while (performance.now() < endAt) {
      const c = cases[next++ % cases.length]!;
      const sent = performance.now();
      const res = await fetch(`${url}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: body(c, cachePrompt),
        signal: AbortSignal.timeout(300_000),
      });
      const text = await res.text();
      const end = performance.now();
      const j = res.ok ? JSON.parse(text) : null;
      done.push({
        endMs: end - t0,
        latencyMs: end - sent,
        ok: res.ok,
        prompt: j?.usage?.prompt_tokens ?? 0,
        completion: j?.usage?.completion_tokens ?? 0,
        cached: j?.usage?.prompt_tokens_details?.cached_tokens ?? 0,
        finish: j?.choices?.[0]?.finish_reason ?? `http ${res.status}`,
        ...(res.ok ? {} : { error: `${res.status} ${text.slice(0, 120)}` }),
      });
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const from = warmupS * 1000;
  const to = from + seconds * 1000;
  const inWindow = done.filter((d) => d.endMs >= from && d.endMs < to);
  const ok = inWindow.filter((d) => d.ok);
  const sum = (k: "prompt" | "completion" | "cached") => ok.reduce((s, d) => s + d[k], 0);
  const lat = ok.map((d) => d.latencyMs).sort((a, b) => a - b);
  return {
    window_s: seconds,
    completions: ok.length,
    errors: inWindow.length - ok.length,
    completions_per_s: ok.length / seconds,
    prompt_tokens_per_s: sum("prompt") / seconds,
    completion_tokens_per_s: sum("completion") / seconds,
    mean_prompt_tokens: sum("prompt") / (ok.length || 1),
    mean_completion_tokens: sum("completion") / (ok.length || 1),
    cached_prompt_share: sum("cached") / (sum("prompt") || 1),
    stopped_share: ok.filter((d) => d.finish === "stop").length / (ok.length || 1),
    latency_p50_ms: pct(lat, 0.5),
    latency_p95_ms: pct(lat, 0.95),
    error_kinds: Object.entries(
      Object.groupBy(inWindow.filter((d) => !d.ok), (d) => d.error!.replace(/\d+/g, "N")),
    ).map(([k, v]) => `${v!.length}× ${k}`),
  };
}

const sizes = flags.sizes.split(",") as SizeName[];
for (const s of sizes) if (!SIZE_NAMES.includes(s)) throw new Error(`--sizes: ${s} is not one of ${SIZE_NAMES}`);
const parallel = Number(flags.parallel);
const concurrency = Number(flags.concurrency ?? flags.parallel);
const port = Number(flags.port);
const { workload } = await loadWorkload(flags.workload);
const classes = flags.classes.split(",");
const cases = workload.cases.filter((c) => c.input_size === "typical" && classes.includes(c.class));
if (!cases.length) throw new Error(`no typical-input case of ${classes} in ${flags.workload}`);

for (const size of sizes) {
  const engine = await startEngine({
    size,
    seed: 1,
    parallel,
    port,
    ctx: Number(flags.ctx),
    threads: Number(flags.threads),
  });
  try {
    const loadBefore = loadavg();
    const r = await measure(
      engine.url,
      cases,
      concurrency,
      Number(flags["warmup-s"]),
      Number(flags.seconds),
      !flags["no-prompt-cache"],
    );
    const row = {
      size,
      parameters: engine.model.sidecar.architecture.parameters,
      parallel,
      concurrency,
      threads: Number(flags.threads),
      prompt_cache: !flags["no-prompt-cache"],
      cases: cases.length,
      ...r,
      loadavg_before: loadBefore,
      loadavg_after: loadavg(),
    };
    console.log(
      flags.json
        ? JSON.stringify(row)
        : Object.entries(row).map(([k, v]) => `${k}=${typeof v === "number" ? +v.toFixed(3) : v}`).join(" "),
    );
  } finally {
    await stopEngine(port);
  }
}
