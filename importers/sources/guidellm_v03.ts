/**
 * GuideLLM's v0.2–0.3 report: `{benchmarks: [generative_benchmark]}`, request records under
 * `requests.{successful,errored,incomplete}`, times in epoch seconds (`*_ms` fields in ms, `request_latency` in s),
 * the scheduler's targeted start in `scheduler_info.targeted_start_time`.
 *
 * @module
 */
import { z } from "zod";
import type { SourceOutcome, SourceRequest, SourceRun } from "../source.ts";
import { checked, secondsToMs, type SourceText } from "./_source_text.ts";
import {
  guidellmLacks,
  guidellmRun,
  metricHeadlines,
  stageNames,
  stageOf,
  Strategy,
  Totals,
} from "./_guidellm_common.ts";

const t = z.number().finite();
const maybe = t.nullable().optional();
const SchedulerInfo = z.looseObject({
  targeted_start_time: t,
  queued_time: maybe,
  dequeued_time: maybe,
  scheduled_time: maybe,
  worker_start: maybe,
  request_start: maybe,
  request_end: maybe,
  worker_end: maybe,
});
const Record_ = z.looseObject({
  type_: z.string(),
  request_id: z.string().nullable().optional(),
  scheduler_info: SchedulerInfo,
  prompt_tokens: z.number().int().nonnegative().nullable().optional(),
  output_tokens: z.number().int().nonnegative().nullable().optional(),
  start_time: t,
  end_time: t,
  first_token_time: maybe,
  last_token_time: maybe,
  request_latency: maybe,
  time_to_first_token_ms: maybe,
  time_per_output_token_ms: maybe,
  inter_token_latency_ms: maybe,
  tokens_per_second: maybe,
  output_tokens_per_second: maybe,
  error: z.string().nullable().optional(),
});
type Record_ = z.infer<typeof Record_>;
const list = z.array(Record_).nullable().optional();
const Benchmark = z.looseObject({
  type_: z.literal("generative_benchmark"),
  args: z.looseObject({
    strategy: Strategy,
    profile: z.looseObject({ strategy_types: z.array(z.string()).optional() }).optional(),
  }),
  worker: z.looseObject({ backend_model: z.string().nullable().optional() }).nullable().optional(),
  start_time: t,
  end_time: t,
  duration: maybe,
  request_totals: Totals.optional(),
  metrics: z.record(z.string(), z.unknown()),
  requests: z.looseObject({ successful: list, errored: list, incomplete: list }),
});
export const ReportV03 = z.object({ benchmarks: z.array(Benchmark).min(1) });

const STATUS: ["successful" | "errored" | "incomplete", SourceOutcome][] = [
  ["successful", "ok"],
  ["errored", "error"],
  ["incomplete", "incomplete"],
];

/** One record as a {@linkcode SourceRequest}. */
function request(r: Record_, at: string, stage: string, outcome: SourceOutcome): SourceRequest {
  const s = r.scheduler_info;
  const metrics: Record<string, number | null> = {
    "guidellm.time_per_output_token_ms": r.time_per_output_token_ms ?? null,
    "guidellm.inter_token_latency_ms": r.inter_token_latency_ms ?? null,
    "guidellm.tokens_per_second": r.tokens_per_second ?? null,
    "guidellm.output_tokens_per_second": r.output_tokens_per_second ?? null,
    "guidellm.last_token_epoch_ms": secondsToMs(r.last_token_time),
    "guidellm.queued_epoch_ms": secondsToMs(s.queued_time),
    "guidellm.worker_start_epoch_ms": secondsToMs(s.worker_start),
  };
  return {
    id: r.request_id ?? at,
    at,
    stage,
    outcome,
    tool_status: r.error ?? null,
    http_status: null,
    scheduled_epoch_ms: s.targeted_start_time * 1000,
    sent_epoch_ms: r.start_time * 1000,
    first_token_epoch_ms: secondsToMs(r.first_token_time),
    completed_epoch_ms: outcome === "ok" ? r.end_time * 1000 : null,
    ttft_ms: r.time_to_first_token_ms ?? null,
    e2e_ms: outcome === "ok" ? secondsToMs(r.request_latency) : null,
    itl_ms: null,
    input_tokens: r.prompt_tokens ?? null,
    output_tokens: r.output_tokens ?? null,
    token_source: null,
    tool_metrics: { ...metrics, "guidellm.end_epoch_ms": r.end_time * 1000 },
  };
}

/** Reads a v0.2–0.3 report already parsed (from JSON or YAML). */
export function readGuidellmV03(value: unknown, src: SourceText, format: string): SourceRun {
  const report = checked(ReportV03, value, src.path, { what: "GuideLLM v0.2–0.3 report" });
  const unique = stageNames(report.benchmarks.map((b) => b.args.strategy));
  const run = guidellmRun(src, format, {
    tool_version: null,
    model: report.benchmarks[0]!.worker?.backend_model ?? null,
  });
  let sampled = false;
  for (const [i, b] of report.benchmarks.entries()) {
    const stage = unique[i]!;
    const at = `benchmarks[${i}]`;
    run.stages.push(
      stageOf(
        stage,
        b.args.strategy,
        { start: b.start_time, end: b.end_time, duration: b.duration ?? null },
        b.request_totals ?? null,
      ),
    );
    const kept: Record<string, number> = {};
    for (const [status, outcome] of STATUS) {
      const records: Record_[] | null | undefined = b.requests[status];
      if (records == null) run.notes.push(`${at}.requests.${status} is absent: read as no record kept.`);
      kept[status] = records?.length ?? 0;
      for (const [j, r] of (records ?? []).entries()) {
        run.requests.push(request(r, `${src.path}: ${at}.requests.${status}[${j}]`, stage, outcome));
      }
    }
    const tot = b.request_totals;
    if (
      tot && (tot.successful > kept.successful! || tot.errored > kept.errored! || tot.incomplete > kept.incomplete!)
    ) {
      sampled = true;
      run.notes.push(
        `${at} keeps ${kept.successful! + kept.errored! + kept.incomplete!} request records of ` +
          `${tot.successful + tot.errored + tot.incomplete} (request_totals: ${tot.successful} successful, ` +
          `${tot.errored} errored, ${tot.incomplete} incomplete; records: ${kept.successful} / ${kept.errored} / ` +
          `${kept.incomplete}): a stripped or sampled file.`,
      );
    }
    run.headlines.push(...metricHeadlines(b.metrics, at, stage, "v0.3"));
  }
  const planned = report.benchmarks[0]!.args.profile?.strategy_types?.length;
  if (planned && planned > report.benchmarks.length) {
    run.notes.push(
      `args.profile plans ${planned} strategies; the file holds ${report.benchmarks.length} benchmark(s).`,
    );
  }
  run.summary_only = run.requests.length === 0;
  run.lacks = guidellmLacks(!run.summary_only, sampled);
  return run;
}
