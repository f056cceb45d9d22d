/**
 * Reader of an llm-d "Benchmark Report v0.2" (llm-d-benchmark's converted form of a benchmark's results) when the
 * benchmark was vLLM's (`scenario.load.standardized.tool: vllm-benchmark`). The numbers are vLLM's, under the
 * converter's names; the definitions are vLLM's (`_vllm_terms.ts`). A report of any other tool is refused.
 *
 * @module
 */
import { z } from "zod";
import { InputError } from "../../schema/errors.ts";
import type { SourceHeadline, SourceRun } from "../source.ts";
import { checked, parseYaml, type SourceText } from "./_source_text.ts";
import { statWords, VLLM_METRICS, VLLM_SCALARS } from "./_vllm_terms.ts";
import { vllmLacks } from "./_vllm_lacks.ts";

const stats = z.record(z.string(), z.union([z.number(), z.string()]));
const mean = z.object({ mean: z.number(), units: z.string() });
const Report = z.object({
  version: z.literal("0.2"),
  results: z.object({
    request_performance: z.object({
      aggregate: z.object({
        latency: z.record(z.string(), stats),
        requests: z.looseObject({ total: z.number().int(), failures: z.number().int() }),
        throughput: z.record(z.string(), mean),
      }),
    }),
  }),
  run: z.looseObject({ time: z.looseObject({ end: z.string().optional() }).optional() }).optional(),
  scenario: z.object({
    load: z.looseObject({
      standardized: z.looseObject({
        tool: z.string(),
        tool_version: z.string().nullable().optional(),
        rate_qps: z.number().nullable().optional(),
        concurrency: z.number().int().nullable().optional(),
      }),
    }),
  }),
});

/** The converter's latency names → vLLM's metric; its statistic names → vLLM's. */
const METRIC: Record<string, string> = {
  time_to_first_token: "ttft",
  time_per_output_token: "tpot",
  inter_token_latency: "itl",
  request_latency: "e2el",
};
const THROUGHPUT: Record<string, string> = {
  request_rate: "request_throughput",
  output_token_rate: "output_throughput",
  total_token_rate: "total_token_throughput",
};
const vllmStat = (s: string) => s === "stddev" ? "std" : s === "p50" ? "median" : s.replace(/^p(\d+)p(\d+)$/, "p$1.$2");

/** True for a parsed document that looks like a Benchmark Report (any version). */
export function isLlmdReport(value: unknown): boolean {
  return typeof value === "object" && value !== null && "results" in value && "scenario" in value &&
    "version" in value;
}

/** Parses a Benchmark Report v0.2 of a vLLM run (YAML text, or the JSON value already parsed). */
export function parseLlmdReport(src: SourceText, parsed?: unknown): SourceRun {
  const value = parsed ?? parseYaml(src.text, src.path);
  const tool = (value as { scenario?: { load?: { standardized?: { tool?: unknown } } } })?.scenario?.load
    ?.standardized?.tool;
  if (typeof tool === "string" && tool !== "vllm-benchmark") {
    throw new InputError(
      `${src.path}: an llm-d Benchmark Report of the tool "${tool}", not of vLLM's benchmark: read it as that tool's`,
    );
  }
  const r = checked(Report, value, src.path, { what: "llm-d Benchmark Report v0.2 of a vLLM run" });
  const agg = r.results.request_performance.aggregate;
  const std = r.scenario.load.standardized;
  const prefix = "results.request_performance.aggregate";
  const headlines: SourceHeadline[] = [];
  for (const [name, s] of Object.entries(agg.latency)) {
    const metric = METRIC[name];
    for (const [stat, v] of Object.entries(s)) {
      if (stat === "units" || typeof v !== "number") continue;
      headlines.push({
        key: `${prefix}.latency.${name}.${stat}`,
        stage: null,
        value: v,
        unit: String(s.units ?? ""),
        definition: metric
          ? `${statWords(vllmStat(stat))} of vLLM's ${metric} (${metric}: ${VLLM_METRICS[metric]}), as llm-d's ` +
            "converter named it"
          : "a latency the converter added; no vLLM definition known to this reader",
      });
    }
  }
  for (const [name, m] of Object.entries(agg.throughput)) {
    const key = THROUGHPUT[name];
    headlines.push({
      key: `${prefix}.throughput.${name}.mean`,
      stage: null,
      value: m.mean,
      unit: m.units,
      definition: key
        ? `vLLM's ${key} under the converter's name ("mean" of one number): ${VLLM_SCALARS[key]!.definition}`
        : "a throughput the converter added; no vLLM definition known to this reader",
    });
  }
  for (const k of ["total", "failures"] as const) {
    headlines.push({
      key: `${prefix}.requests.${k}`,
      stage: null,
      value: agg.requests[k],
      unit: "requests",
      definition: k === "total"
        ? "requests counted by the converter (vLLM's completed + failed)"
        : "vLLM's failed: requests that did not succeed",
    });
  }
  const name = [`rate_qps=${std.rate_qps ?? "unstated"}`];
  if (std.concurrency != null) name.push(`concurrency=${std.concurrency}`);
  return {
    tool: "vllm-bench-serve",
    tool_version: std.tool_version || null,
    files: [{
      path: src.path,
      sha256: src.sha256,
      format: "llm-d Benchmark Report v0.2 (converted from a vLLM bench result)",
    }],
    model: null,
    stages: [{
      name: name.join(","),
      rate_rps: std.rate_qps ?? null,
      concurrency: std.concurrency ?? null,
      start_epoch_ms: null,
      end_epoch_ms: null,
      duration_s: null,
      totals: {
        ok: agg.requests.total - agg.requests.failures,
        error: agg.requests.failures,
        cancelled: null,
        incomplete: null,
      },
    }],
    requests: [],
    summary_only: true,
    headlines,
    lacks: [
      ...vllmLacks({ legacy: false, detailed: false, startTimes: false }),
      {
        field: "source file",
        consequence: "A converted report, not vLLM's own output: only the statistics the converter copied, under " +
          "its names; the run's duration, model and vLLM's other keys are not in it.",
      },
    ],
    notes: [
      "Read as vLLM's numbers: scenario.load.standardized.tool is vllm-benchmark. ok = requests.total − " +
      "requests.failures.",
      ...(r.run?.time?.end ? [`run.time.end ${r.run.time.end} is the converter's stated end time.`] : []),
    ],
  };
}
