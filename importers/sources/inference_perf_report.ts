/**
 * inference-perf's lifecycle reports (`stage_N_lifecycle_metrics.json`, `summary_lifecycle_metrics.json`): the
 * tool's aggregates per stage and for the run, read as headlines under their own dotted keys with the tool's
 * definitions, and the stage's load setting.
 *
 * Definitions from kubernetes-sigs/inference-perf `inference_perf/reportgen/base.py` (`summarize_requests`,
 * `compute_request_latency_metrics`); the clock is `time.perf_counter()` (`client/modelserver/openai_client.py`).
 *
 * @module
 */
import { z } from "zod";
import { InputError } from "../../schema/errors.ts";
import type { SourceHeadline, SourceStage } from "../source.ts";
import { checked, parseJson, type SourceText } from "./_source_text.ts";

const Stat = z.record(z.string(), z.number().nullable()).nullable();

/** The report's shape, loose where versions differ (`schedule_accuracy` before `schedule_delay`; newer extra keys). */
const LifecycleReport = z.looseObject({
  benchmark_time_seconds: z.number().optional(),
  load_summary: z.looseObject({
    count: z.number().int().nonnegative(),
    schedule_delay: Stat.optional(),
    schedule_accuracy: Stat.optional(),
    send_duration: z.number().optional(),
    requested_rate: z.number().nullable().optional(),
    achieved_rate: z.number().optional(),
    concurrency: z.number().int().nullable().optional(),
  }),
  successes: z.looseObject({ count: z.number().int().nonnegative() }),
  failures: z.looseObject({ count: z.number().int().nonnegative() }),
});
export type LifecycleReport = z.infer<typeof LifecycleReport>;

/** One report file read: its stage (null for the run summary), the report, and the file it came from. */
export interface ReadReport {
  /** `stage_3` for `stage_3_lifecycle_metrics.json`; null for `summary_lifecycle_metrics.json`. */
  stage: string | null;
  /** The stage number, for ordering (null for the summary). */
  index: number | null;
  report: LifecycleReport;
  file: SourceText;
}

/** Parses and checks one lifecycle report. */
export function readLifecycleReport(file: SourceText, stage: string | null, index: number | null): ReadReport {
  const value = parseJson(file.text, file.path);
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new InputError(`${file.path}: an inference-perf lifecycle report is one JSON object`);
  }
  return { stage, index, report: checked(LifecycleReport, value, file.path), file };
}

const FROM_SEND = "from start_time (when the request was sent), not from its scheduled time";

/** The tool's definition and unit of one report key (`family` is the key without its last statistic). */
function describe(family: string, stat: string): { unit: string; definition: string } {
  const pct = stat === "median" || /^p\d/.test(stat);
  const of = (what: string) =>
    stat === "" ? what : `${stat}${pct ? " (numpy.percentile, linear interpolation)" : ""} of ${what}`;
  const lat = (what: string) => ({ unit: "s", definition: of(what) });
  switch (family) {
    case "load_summary.count":
      return {
        unit: "requests",
        definition: "requests the tool recorded (succeeded + failed); a request never sent or still in flight when " +
          "the run stopped is not written anywhere",
      };
    case "load_summary.schedule_delay":
    case "load_summary.schedule_accuracy":
      return lat("start_time − scheduled_time per recorded request (how late it was sent against its schedule)");
    case "load_summary.send_duration":
      return { unit: "s", definition: "max(start_time) − min(start_time) over the stage's recorded requests" };
    case "load_summary.requested_rate":
      return { unit: "req/s", definition: "the rate the stage was configured with" };
    case "load_summary.achieved_rate":
      return {
        unit: "req/s",
        definition: "load_summary.count / send_duration: sends per second over the span of sends, failures included",
      };
    case "load_summary.concurrency":
      return { unit: "requests", definition: "the stage's configured concurrency level" };
    case "successes.count":
      return { unit: "requests", definition: "recorded requests with no error" };
    case "failures.count":
      return { unit: "requests", definition: "recorded requests with an error (HTTP error, exception, timeout)" };
    case "benchmark_time_seconds":
      return { unit: "s", definition: "max(end_time) − min(start_time) over the recorded requests" };
    case "successes.latency.request_latency":
      return lat(`end_time − start_time per successful request, ${FROM_SEND}`);
    case "failures.request_latency":
      return lat(`end_time − start_time per failed request, ${FROM_SEND}`);
    case "successes.latency.time_to_first_token":
      return lat(
        `first output-token time − start_time per successful streamed request with more than one token time, ${FROM_SEND}; ` +
          "a token's time is the arrival of the SSE chunk that carried it",
      );
    case "successes.latency.time_per_output_token":
      return lat(
        "(last − first output-token time) / (output tokens − 1) per successful streamed request: the first token excluded",
      );
    case "successes.latency.normalized_time_per_output_token":
      return lat("(end_time − start_time) / output tokens per successful request: TTFT included");
    case "successes.latency.inter_token_latency":
      return lat(
        "every gap between consecutive output-token times, pooled over all successful streamed requests; the " +
          "tokens of one chunk share its time, so gaps inside a chunk are 0",
      );
    case "successes.prompt_len":
    case "failures.prompt_len":
      return {
        unit: "tokens",
        definition: `${of("input tokens per request")} (the tool's tokenizer; newer versions use the server's ` +
          "usage.prompt_tokens when reported)",
      };
    case "successes.output_len":
      return { unit: "tokens", definition: `${of("output tokens per successful request")} (the tool's tokenizer)` };
  }
  const through = /^successes\.throughput\.(\w+)_per_sec$/.exec(family + (stat ? `.${stat}` : ""));
  if (through) {
    const what = through[1] === "requests"
      ? "successful requests"
      : `${through[1]!.replace(/_/g, " ")} of successful requests`;
    return {
      unit: through[1] === "requests" ? "req/s" : "tokens/s",
      definition: `${what} / (max(end_time) − min(start_time) over all recorded requests, failures included): ` +
        "the completed numerator over the tool's own window",
    };
  }
  return {
    unit: "",
    definition: `inference-perf's \`${family}${stat ? `.${stat}` : ""}\` as written (no definition recorded here)`,
  };
}

const STAT_KEYS = /^(mean|min|max|median|p\d+(\.\d+)?|std|total|cached|uncached)$/;

/** Every number of a report as a headline keyed by its dotted path (`successes.latency.time_to_first_token.p99`). */
export function reportHeadlines(r: ReadReport): SourceHeadline[] {
  const out: SourceHeadline[] = [];
  const walk = (value: unknown, path: string[]) => {
    if (typeof value === "number") {
      const last = path[path.length - 1]!;
      const isStat = path.length > 1 && STAT_KEYS.test(last) && !/_per_sec$/.test(last);
      const family = (isStat ? path.slice(0, -1) : path).join(".");
      const { unit, definition } = describe(family, isStat ? last : "");
      out.push({ key: path.join("."), stage: r.stage, value, unit, definition });
    } else if (value !== null && typeof value === "object" && !Array.isArray(value)) {
      for (const [k, v] of Object.entries(value)) walk(v, [...path, k]);
    }
  };
  walk(r.report, []);
  return out;
}

/** The stage a per-stage report describes (the run summary describes none). */
export function reportStage(r: ReadReport): SourceStage {
  const ls = r.report.load_summary;
  return {
    name: r.stage ?? "summary",
    rate_rps: ls.requested_rate ?? null,
    concurrency: ls.concurrency ?? null,
    start_epoch_ms: null,
    end_epoch_ms: null,
    duration_s: r.report.benchmark_time_seconds ?? null,
    totals: { ok: r.report.successes.count, error: r.report.failures.count, cancelled: null, incomplete: null },
  };
}
