/**
 * LLMPerf (ray-project/llmperf, `token_benchmark_ray.py`): the per-request `*_individual_responses.json` (a JSON
 * array of per-request dicts: durations and counts only, no timestamps and no ids) and the run's `*_summary.json`,
 * read into one {@linkcode SourceRun}. The two are told apart by shape (array or object), not by name: the
 * llmperf-leaderboard keeps them as `individual/<name>.json` and `summary/<name>.json`.
 *
 * @module
 */
import { z } from "zod";
import { InputError } from "../../schema/errors.ts";
import type { SourceLack, SourceRequest, SourceRun, SourceStage } from "../source.ts";
import { checked, fileEntry, parseJson, type SourceText } from "./_source_text.ts";
import { readLlmperfSummary, type ReadSummary } from "./llmperf_summary.ts";

const Record_ = z.looseObject({
  error_code: z.number().nullable(),
  error_msg: z.string().nullable(),
  ttft_s: z.number(),
  end_to_end_latency_s: z.number(),
  inter_token_latency_s: z.number(),
  request_output_throughput_token_per_s: z.number(),
  number_input_tokens: z.number(),
  number_output_tokens: z.number(),
  number_total_tokens: z.number().optional(),
  GEN_TEXT: z.string().optional(),
});
type LlmperfRecord = z.infer<typeof Record_>;

const LACKS: SourceLack[] = [
  {
    field: "absolute times (scheduled, sent, first token, completed)",
    consequence: "only durations per request: there is no time window, so request rates and goodput per second " +
      "cannot be recomputed from the records, and the array order is the order results were collected, not of sends",
  },
  {
    field: "scheduled_ms",
    consequence: "closed loop (num_concurrent_requests): a request is sent when a slot frees, latency runs from " +
      "send, and the offered rate is whatever the service allowed — coordinated omission is built in",
  },
  {
    field: "token counts",
    consequence: "input tokens are the prompt length the tool sampled, output tokens its own tokenizer's count of " +
      "the generated text: neither is the server's usage",
  },
  {
    field: "gates",
    consequence: "no quality, schema or safety check is recorded (an error_code is a transport or tool error, e.g. " +
      "-100 'Output too few tokens'): those gates are n/a, not failed",
  },
  {
    field: "request ids, class, route",
    consequence: "not recorded: requests are known by their position in the array; one class on one route",
  },
  {
    field: "inter-token gaps",
    consequence: "only the tool's per-request mean (TTFT included), no gaps: ITL percentiles over tokens cannot be " +
      "recomputed",
  },
];

const SUMMARY_ONLY: SourceLack = {
  field: "per-request records",
  consequence: "only the summary: the headlines can be quoted and checked against each other, but nothing can be " +
    "recomputed under another denominator or limit",
};

const ms = (s: number) => s * 1000;

function toRequest(r: LlmperfRecord, i: number, file: string, stage: string, notes: Set<string>): SourceRequest {
  const failed = r.error_code !== null;
  // On an error the tool's client leaves what it never measured at 0 (openai_chat_completions_client.py).
  const measured = (s: number, what: string) => {
    if (failed && s === 0) {
      notes.add(`${file}: ${what} of 0 on an error row read as not measured (null)`);
      return null;
    }
    return ms(s);
  };
  const code = r.error_code;
  return {
    id: `#${i}`,
    at: `${file}: [${i}]`,
    stage,
    outcome: failed ? "error" : "ok",
    tool_status: failed ? `${code} ${r.error_msg ?? ""}`.trim() : null,
    http_status: code !== null && Number.isInteger(code) && code >= 100 && code <= 599 ? code : null,
    scheduled_epoch_ms: null,
    sent_epoch_ms: null,
    first_token_epoch_ms: null,
    completed_epoch_ms: null,
    ttft_ms: measured(r.ttft_s, "ttft_s"),
    e2e_ms: measured(r.end_to_end_latency_s, "end_to_end_latency_s"),
    itl_ms: null,
    input_tokens: r.number_input_tokens,
    output_tokens: r.number_output_tokens,
    token_source: "tool_tokenizer",
    tool_metrics: {
      // On error rows some versions leave the sum of gaps undivided by the token count: kept under its own name.
      [failed ? "llmperf.inter_token_latency_error_row_ms" : "llmperf.inter_token_latency_ms"]: ms(
        r.inter_token_latency_s,
      ),
      "llmperf.request_output_throughput_token_per_s": r.request_output_throughput_token_per_s,
      "llmperf.number_total_tokens": r.number_total_tokens ?? null,
    },
  };
}

function readIndividual(file: SourceText, value: unknown[], stage: string, notes: Set<string>): SourceRequest[] {
  return value.map((rec, i) =>
    toRequest(checked(Record_, rec, file.path, { prefix: `[${i}]` }), i, file.path, stage, notes)
  );
}

/** Reads LLMPerf files: at most one individual-responses array and one summary object, of the same run. */
export function readLlmperf(files: SourceText[]): SourceRun {
  const arrays: { file: SourceText; value: unknown[] }[] = [];
  const summaries: { file: SourceText; read: ReadSummary }[] = [];
  for (const file of files) {
    const value = parseJson(file.text, file.path);
    if (Array.isArray(value)) arrays.push({ file, value });
    else summaries.push({ file, read: readLlmperfSummary(file) });
  }
  if (arrays.length > 1 || summaries.length > 1) {
    throw new InputError(
      `llmperf: give at most one individual-responses file and one summary file of one run (got ${arrays.length} ` +
        `and ${summaries.length})`,
    );
  }
  const summary = summaries[0]?.read;
  const notes = new Set<string>(summary?.notes ?? []);
  const stageName = summary ? `concurrency ${summary.summary.num_concurrent_requests}` : "run";
  const individual = arrays[0];
  const requests = individual ? readIndividual(individual.file, individual.value, stageName, notes) : [];
  const errors = requests.filter((r) => r.outcome === "error").length;
  if (summary && individual) {
    const s = summary.summary;
    if (s.results_num_requests_started !== requests.length || s.results_number_errors !== errors) {
      notes.add(
        `the summary counts ${s.results_num_requests_started} requests and ${s.results_number_errors} errors, the ` +
          `individual file ${requests.length} and ${errors}: they may not be of the same run`,
      );
    }
  }
  if (summary && summary.summary.results_num_completed_requests > 0) {
    const s = summary.summary as Record<string, unknown>;
    const perMin = s.results_num_completed_requests_per_min;
    if (typeof perMin === "number" && perMin > 0) {
      notes.add(
        `the test's wall time is not written; it is implied by results_num_completed_requests / ` +
          `results_num_completed_requests_per_min × 60 = ${
            (summary.summary.results_num_completed_requests / perMin * 60).toFixed(3)
          } s (the denominator of both rates)`,
      );
    }
  }
  if (individual && individual.value.some((r) => (r as Record<string, unknown>)?.GEN_TEXT !== undefined)) {
    notes.add(`${individual.file.path}: GEN_TEXT (the generated text) is present; not read`);
  }
  const stage: SourceStage = {
    name: stageName,
    rate_rps: null,
    concurrency: summary?.summary.num_concurrent_requests ?? null,
    start_epoch_ms: null,
    end_epoch_ms: null,
    duration_s: null,
    totals: {
      ok: summary ? summary.summary.results_num_completed_requests : individual ? requests.length - errors : null,
      error: summary ? summary.summary.results_number_errors : individual ? errors : null,
      cancelled: null,
      incomplete: null,
    },
  };
  const version = summary?.summary.version;
  return {
    tool: "llmperf",
    tool_version: version ? `results format ${version}` : null,
    files: [
      ...arrays.map((a) => fileEntry(a.file, "*_individual_responses.json")),
      ...summaries.map((s) => fileEntry(s.file, "*_summary.json")),
    ],
    model: summary?.summary.model ?? null,
    stages: [stage],
    requests,
    summary_only: !individual,
    headlines: summary?.headlines ?? [],
    lacks: individual ? LACKS : [SUMMARY_ONLY, ...LACKS.slice(1)],
    notes: [...notes],
  };
}
