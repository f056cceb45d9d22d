/**
 * Reader of vLLM's serving benchmark result JSON: `vllm bench serve --save-result` (with or without
 * `--save-detailed`) and the legacy `benchmarks/benchmark_serving.py --save-result`. An llm-d "Benchmark Report
 * v0.2" converted from such a result is read too (`llmd_report.ts`).
 *
 * The file is one run at one request rate: one stage, the tool's summary numbers as headlines (definitions in
 * `_vllm_terms.ts`), and, with `--save-detailed`, one request per index of the per-request arrays
 * (`vllm_detailed.ts`).
 *
 * @module
 */
import { z } from "zod";
import { InputError } from "../../schema/errors.ts";
import type { SourceHeadline, SourceRun, SourceStage } from "../source.ts";
import { vllmLacks } from "./_vllm_lacks.ts";
import { checked, parseJson, readSourceText, type SourceText } from "./_source_text.ts";
import { splitStatKey, statWords, VLLM_METRICS, VLLM_SCALARS } from "./_vllm_terms.ts";
import { arrayProblems, hasDetail, VllmArrays, vllmRequests } from "./vllm_detailed.ts";
import { isLlmdReport, parseLlmdReport } from "./llmd_report.ts";

const count = z.number().int().nonnegative();
/** The keys every version writes, typed; the rest is read key by key. */
const VllmResult = z.looseObject({
  model_id: z.string().nullable().optional(),
  num_prompts: count.nullable().optional(),
  request_rate: z.union([z.number().positive(), z.literal("inf")]).nullable().optional(),
  burstiness: z.number().nullable().optional(),
  max_concurrency: count.nullable().optional(),
  duration: z.number().positive(),
  completed: count,
  failed: count.optional(),
  request_throughput: z.number(),
});

/** Keys that describe the run's settings, not results. */
const SETTINGS = new Set([
  "date",
  "endpoint_type",
  "backend",
  "label",
  "model_id",
  "tokenizer_id",
  "num_prompts",
  "request_rate",
  "burstiness",
  "max_concurrency",
  "ramp_up_strategy",
  "ramp_up_start_rps",
  "ramp_up_end_rps",
  ...Object.keys(VllmArrays.shape),
]);

/** Reads one vLLM result file (JSON), or an llm-d Benchmark Report v0.2 converted from one (YAML or JSON). */
export async function readVllmBench(files: string[]): Promise<SourceRun> {
  if (files.length !== 1) {
    throw new InputError(`vllm-bench-serve: give exactly one result file (got ${files.length}: ${files.join(", ")})`);
  }
  return parseVllmBench(await readSourceText(files[0]!));
}

/** Parses a vLLM result (or an llm-d report of one) already read. */
export function parseVllmBench(src: SourceText): SourceRun {
  if (/\.ya?ml$/i.test(src.path)) return parseLlmdReport(src);
  const value = parseJson(src.text, src.path);
  if (isLlmdReport(value)) return parseLlmdReport(src, value);
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new InputError(
      `${src.path}: a vLLM result is one JSON object, got ${Array.isArray(value) ? "an array" : typeof value}`,
    );
  }
  const raw = value as Record<string, unknown>;
  const r = checked(VllmResult, raw, src.path, { what: "vLLM bench serve / benchmark_serving.py result" });
  const arrays = checked(VllmArrays, raw, src.path, { what: "vLLM result's per-request arrays" });
  const problems = arrayProblems(arrays, src.path);
  if (problems.length) throw new InputError(`${src.path}: per-request arrays do not line up`, problems);

  const legacy = "request_goodput:" in raw || (!("failed" in raw) && !("endpoint_type" in raw));
  const detailed = hasDetail(arrays);
  const stage = stageOf(r);
  const requests = detailed ? vllmRequests(arrays, src.path, stage.name) : [];
  return {
    tool: "vllm-bench-serve",
    tool_version: null,
    files: [{ path: src.path, sha256: src.sha256, format: formatOf(legacy, detailed) }],
    model: r.model_id ?? null,
    stages: [stage],
    requests,
    summary_only: !detailed,
    headlines: headlinesOf(raw),
    lacks: vllmLacks({ legacy, detailed, startTimes: arrays.start_times !== undefined }),
    notes: notesOf(raw, r, requests.filter((q) => q.outcome === "ok").length, detailed),
  };
}

function formatOf(legacy: boolean, detailed: boolean): string {
  const what = legacy ? "benchmark_serving.py --save-result JSON (legacy)" : "vllm bench serve --save-result JSON";
  return `${what}, ${detailed ? "with the --save-detailed per-request arrays" : "summary (no per-request arrays)"}`;
}

function stageOf(r: z.infer<typeof VllmResult>): SourceStage {
  const rate = typeof r.request_rate === "number" ? r.request_rate : null;
  const parts = [`request_rate=${r.request_rate ?? "unstated"}`];
  if (r.max_concurrency != null) parts.push(`max_concurrency=${r.max_concurrency}`);
  return {
    name: parts.join(","),
    rate_rps: rate,
    concurrency: r.max_concurrency ?? null,
    start_epoch_ms: null,
    end_epoch_ms: null,
    duration_s: r.duration,
    totals: { ok: r.completed, error: r.failed ?? null, cancelled: null, incomplete: null },
  };
}

/** Every result number vLLM defines, under its own key (the legacy `request_goodput:` included). */
function headlinesOf(raw: Record<string, unknown>): SourceHeadline[] {
  const out: SourceHeadline[] = [];
  for (const [key, value] of Object.entries(raw)) {
    if (typeof value !== "number" && value !== null) continue;
    const scalar = VLLM_SCALARS[key];
    if (scalar) {
      out.push({ key, stage: null, value, unit: scalar.unit, definition: scalar.definition });
      continue;
    }
    const stat = splitStatKey(key);
    if (stat) {
      const definition = `${statWords(stat.stat)} of ${stat.metric}: ${VLLM_METRICS[stat.metric]}`;
      out.push({ key, stage: null, value, unit: "ms", definition });
    }
  }
  return out;
}

function notesOf(raw: Record<string, unknown>, r: z.infer<typeof VllmResult>, ok: number, detailed: boolean) {
  const notes: string[] = [];
  if ("request_goodput:" in raw) {
    notes.push(
      'The goodput key is spelled "request_goodput:" (a stray colon, as benchmark_serving.py wrote it); ' +
        "kept verbatim.",
    );
  }
  const goodput = raw["request_goodput"] ?? raw["request_goodput:"];
  if (goodput === null) notes.push("request_goodput is null: the run was given no --goodput SLO.");
  if (r.failed === undefined) {
    const sent = r.num_prompts;
    notes.push(
      "No failed count (the legacy script wrote none)" +
        (sent != null
          ? `: num_prompts ${sent} − completed ${r.completed} = ${sent - r.completed} is the failure count only ` +
            "because the script sends every prompt; the file does not state it."
          : "."),
    );
  }
  if (typeof raw.date === "string") {
    notes.push(`date ${raw.date} is when the result was written (local time, no time zone), not a measured window.`);
  }
  const extra = Object.entries(raw).filter(([k, v]) =>
    !SETTINGS.has(k) && !(k in VLLM_SCALARS) && !splitStatKey(k) && typeof v === "string"
  );
  if (extra.length) {
    notes.push(`Keys added with --metadata: ${extra.map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(", ")}.`);
  }
  const unread = Object.entries(raw).filter(([k, v]) =>
    !SETTINGS.has(k) && !(k in VLLM_SCALARS) && !splitStatKey(k) && typeof v !== "string"
  ).map(([k]) => k);
  if (unread.length) notes.push(`Keys not read (no definition in the reader's table): ${unread.join(", ")}.`);
  if (!detailed && Array.isArray(raw.latencies)) {
    notes.push(
      `latencies (${raw.latencies.length} entries) and queue_times are kept by newer vllm bench serve ` +
        "without --save-detailed: per-request durations with no outcome or order per request, not read as requests.",
    );
  }
  if (detailed && ok !== r.completed) {
    notes.push(`The per-request arrays hold ${ok} successful requests, but completed says ${r.completed}.`);
  }
  return notes;
}
