/**
 * The engine's capacity measured apart from the runner (engine/capacity.ts `closedLoopCapacity`, which the knee's
 * integration test measures with too): closed loop, as many requests in flight as the server has slots, each worker
 * sending its next request the moment its last one ends, for a fixed window after a warm-up. Completions per second
 * over the window is the saturation throughput the knee of an open-loop sweep should sit near. The requests are
 * design-v1 cases with typical inputs (by default the short classes), or a workload's cases of `--tags`, sent in case
 * order, not streamed (`--stream`: streamed, as the runner sends them), with the body the runner sends for a case's
 * first round (tools, the output schema as response_format, the case's max_tokens); `--no-prompt-cache` sends
 * `cache_prompt: false` so that no request reuses another's prefix from the server's KV cache, `--cache-bust` puts the
 * runner's `--cache-bust` prefix before each request's first user message (the shared system line stays cacheable).
 * The machine's load (`/proc/loadavg`) is recorded before and after: the cores are shared. Results and commands:
 * docs/engine.md.
 *
 *     npx deno run -A bench/engine_capacity.ts --sizes tiny,small --seconds 60
 *     npx deno run -A bench/engine_capacity.ts --sizes tiny --workload data/workloads/engine-validation \
 *       --tags short-chat --cache-bust --stream --seconds 30
 *
 * @module
 */
import { parseArgs } from "node:util";
import { defaultThreads, startEngine, stopEngine } from "../engine/mod.ts";
import { SIZE_NAMES, type SizeName } from "../engine/model.ts";
import { closedLoopCapacity } from "../engine/capacity.ts";
import { cacheBustPrefix, prefixFirstUser } from "../runner/cache_bust.ts";
import { chatBody, type WireMessage } from "../runner/dialects/openai_chat.ts";
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
    tags: { type: "string" },
    "no-prompt-cache": { type: "boolean", default: false },
    "cache-bust": { type: "boolean", default: false },
    stream: { type: "boolean", default: false },
    json: { type: "boolean", default: false },
  },
});

/** The body the runner sends for the case's first round (runner/dialects/openai_chat.ts), unstreamed unless `--stream`. */
function body(c: WorkloadCase, i: number): string {
  const messages = c.messages.map((m) => ({ ...m } as WireMessage));
  // `--cache-bust`: the runner's prefix (runner/cache_bust.ts), one per request.
  if (bust) prefixFirstUser(messages, bust(`r${String(i).padStart(7, "0")}`));
  const json = chatBody(c, messages, { model: "engine", stream: flags.stream, maxTokens: c.max_output_tokens });
  return flags["no-prompt-cache"] ? JSON.stringify({ ...JSON.parse(json), cache_prompt: false }) : json;
}

const sizes = flags.sizes.split(",") as SizeName[];
for (const s of sizes) if (!SIZE_NAMES.includes(s)) throw new Error(`--sizes: ${s} is not one of ${SIZE_NAMES}`);
const parallel = Number(flags.parallel);
const concurrency = Number(flags.concurrency ?? flags.parallel);
const port = Number(flags.port);
const { workload } = await loadWorkload(flags.workload);
const classes = flags.classes.split(",");
const tags = flags.tags?.split(",") ?? null;
const cases = workload.cases.filter((c) =>
  tags ? (c.tags ?? []).some((t) => tags.includes(t)) : c.input_size === "typical" && classes.includes(c.class)
);
if (!cases.length) throw new Error(`no case of ${tags ?? `typical input of ${classes}`} in ${flags.workload}`);
const bust = flags["cache-bust"] ? cacheBustPrefix(`engine-capacity-${Date.now()}`) : null;

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
    const { definition: _, ...measured } = await closedLoopCapacity(engine.url, {
      body: (i) => body(cases[i % cases.length]!, i),
      concurrency,
      warmupS: Number(flags["warmup-s"]),
      seconds: Number(flags.seconds),
    });
    const row = {
      size,
      parameters: engine.model.sidecar.architecture.parameters,
      parallel,
      threads: Number(flags.threads),
      prompt_cache: !flags["no-prompt-cache"],
      cache_bust: flags["cache-bust"],
      stream: flags.stream,
      cases: cases.length,
      ...measured,
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
