/**
 * AIPerf's aggregate exports: `profile_export_aiperf.json` — early form `{records: {tag: {tag, unit, header, avg,
 * min, max, p1 … p99, std, count}}, input_config, error_summary, start_time, end_time}`, 0.8.0 form with the metric
 * dicts at the top level (plus `sum`, `schema_version`, `aiperf_version`, `warmup_metrics`) — and
 * `profile_export_aiperf.csv` (CRLF; a `Metric,avg,min,max,…` block, an empty line, a `Metric,Value` block; the unit
 * only in the label). Both become headlines under the tool's own keys, with the run's settings and counts.
 *
 * @module
 */
import { z } from "zod";
import { InputError } from "../../schema/errors.ts";
import type { SourceHeadline } from "../source.ts";
import { checked, parseJson, type SourceText } from "./_source_text.ts";
import { metricCsvCells } from "./_metric_csv.ts";
import { aiperfDefinition, type AiperfForm, aiperfHeaderDefinition } from "./_aiperf_tags.ts";

/** What the aggregate files say about the run besides headlines. */
export interface AiperfSummary {
  headlines: SourceHeadline[];
  version: string | null;
  schema: string | null;
  model: string | null;
  concurrency: number | null;
  rate_rps: number | null;
  duration_s: number | null;
  window_ns: [number, number] | null;
  counts: { ok: number | null; error: number | null; cancelled: number | null };
  notes: string[];
}

const STAT = (stat: string) =>
  stat === "avg"
    ? "mean"
    : stat === "std"
    ? "standard deviation"
    : stat === "count"
    ? "number of values"
    : stat === "sum"
    ? "sum"
    : stat === "min"
    ? "minimum"
    : stat === "max"
    ? "maximum"
    : `percentile ${stat.slice(1)}`;
const STATS = ["avg", "min", "max", "sum", "p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95", "p99", "std", "count"];

const MetricDict = z.looseObject({ unit: z.string(), avg: z.number().nullable().optional() });
const Summary = z.looseObject({
  records: z.record(z.string(), MetricDict).optional(),
  aiperf_version: z.string().optional(),
  schema_version: z.string().optional(),
  input_config: z.looseObject({
    endpoint: z.looseObject({ model_names: z.array(z.string()).optional() }).optional(),
    loadgen: z.looseObject({
      concurrency: z.number().int().nullable().optional(),
      request_rate: z.number().nullable().optional(),
    }).optional(),
  }).optional(),
  error_summary: z.array(z.object({
    error_details: z.looseObject({ code: z.number().int().nullable().optional(), type: z.string().optional() }),
    count: z.number().int(),
  })).optional(),
  start_time: z.string().optional(),
  end_time: z.string().optional(),
});

function dictHeadlines(
  dicts: Record<string, unknown>,
  prefix: string,
  stage: string,
  form: AiperfForm,
): SourceHeadline[] {
  const out: SourceHeadline[] = [];
  for (const [tag, d] of Object.entries(dicts)) {
    const m = MetricDict.safeParse(d);
    if (!m.success) continue;
    // a run-level number (request_count, request_throughput) fills only avg: its value, not a mean
    const scalar = typeof (d as Record<string, unknown>).p50 !== "number" &&
      typeof (d as Record<string, unknown>).min !== "number";
    for (const stat of STATS) {
      const v = (m.data as Record<string, unknown>)[stat];
      if (typeof v !== "number") continue;
      out.push({
        key: `${prefix}${tag}.${stat}`,
        stage,
        value: v,
        unit: stat === "count" ? "values" : m.data.unit,
        definition: `${scalar ? "value" : STAT(stat)} of ${tag}: ${aiperfDefinition(tag, form)}`,
      });
    }
  }
  return out;
}

/** end − start in s of two ISO times with no zone (read both as UTC); null when either is missing or unreadable. */
function phaseSeconds(start: string | undefined, end: string | undefined): number | null {
  if (!start || !end) return null;
  const asUtc = (t: string) => Date.parse(/(Z|[+-]\d\d:?\d\d)$/.test(t) ? t : `${t.slice(0, 23)}Z`);
  const [a, b] = [asUtc(start), asUtc(end)];
  if (!Number.isFinite(a) || !Number.isFinite(b) || b <= a) return null;
  // Date keeps ms; the microseconds are added back from the text.
  const micros = (t: string) => Number((/\.\d{3}(\d{1,3})/.exec(t)?.[1] ?? "0").padEnd(3, "0")) / 1e6;
  return Math.round(((b - a) / 1000 + micros(end) - micros(start)) * 1e6) / 1e6;
}

/** Reads profile_export_aiperf.json (either form). */
export function readAiperfJson(src: SourceText): AiperfSummary {
  const raw = parseJson(src.text, src.path);
  const s = checked(Summary, raw, src.path, { what: "AIPerf profile_export_aiperf.json" });
  const flat = s.records === undefined;
  if (flat && !("request_count" in (raw as object)) && !("request_latency" in (raw as object))) {
    throw new InputError(`${src.path}: neither records nor top-level metric dicts: not an AIPerf aggregate export`);
  }
  const dicts: Record<string, unknown> = s.records ?? raw as Record<string, unknown>;
  const form: AiperfForm = flat ? "0.8" : "early";
  const headlines = dictHeadlines(dicts, flat ? "" : "records.", "profiling", form);
  const warm = (raw as { warmup_metrics?: unknown }).warmup_metrics;
  if (warm && typeof warm === "object") {
    headlines.push(...dictHeadlines(warm as Record<string, unknown>, "warmup_metrics.", "warmup", form));
  }
  const avg = (tag: string) => {
    const m = MetricDict.safeParse(dicts[tag]);
    return m.success ? m.data.avg ?? null : null;
  };
  const cancelled = (s.error_summary ?? [])
    .filter((e) => e.error_details.type === "RequestCancellationError" || e.error_details.code === 499)
    .reduce((a, e) => a + e.count, 0);
  const errors = avg("error_request_count") ??
    (s.error_summary ? s.error_summary.reduce((a, e) => a + e.count, 0) : null);
  const lo = avg("min_request_timestamp");
  const hi = avg("max_response_timestamp");
  const notes: string[] = [];
  if (s.start_time) {
    notes.push(
      `start_time ${s.start_time} and end_time ${s.end_time ?? "?"} carry no time zone; the stage is placed on ` +
        "the clock by min_request_timestamp and max_response_timestamp (epoch ns).",
    );
  }
  // AIPerf 0.8 divides its rates by the profiling phase's end_time − start_time, not by benchmark_duration: the
  // difference of two times on one clock, whatever their zone.
  const phase = flat ? phaseSeconds(s.start_time, s.end_time) : null;
  const bench = avg("benchmark_duration");
  if (flat && phase === null) {
    notes.push(
      "The 0.8 form's rates divide by the profiling phase's end_time − start_time, which the file does not state: " +
        "the stage has no tool duration.",
    );
  } else if (phase !== null) {
    notes.push(
      `The rates (request_throughput, output_token_throughput, …) are over the profiling phase's end_time − ` +
        `start_time = ${phase} s${bench !== null ? `, not benchmark_duration (${bench} s)` : ""}.`,
    );
  }
  return {
    headlines,
    version: s.aiperf_version ?? null,
    schema: s.schema_version ?? null,
    model: s.input_config?.endpoint?.model_names?.[0] ?? null,
    concurrency: s.input_config?.loadgen?.concurrency ?? null,
    rate_rps: s.input_config?.loadgen?.request_rate ?? null,
    duration_s: flat ? phase : bench ?? (lo !== null && hi !== null ? (hi - lo) / 1e9 : null),
    window_ns: lo !== null && hi !== null ? [lo, hi] : null,
    counts: {
      ok: avg("request_count"),
      error: errors === null ? null : errors - cancelled,
      cancelled: s.error_summary ? cancelled : null,
    },
    notes,
  };
}

/** Reads profile_export_aiperf.csv: its two blocks, CRLF or LF. */
export function readAiperfCsv(src: SourceText): AiperfSummary {
  const headlines: SourceHeadline[] = [];
  const scalars = new Map<string, number>();
  // 0.8's CSV has a sum column (the early one has none): its rates are over the profiling phase's window.
  const form: AiperfForm = /^Metric,.*\bsum\b/.test(src.text.split(/\r?\n/, 1)[0] ?? "") ? "0.8" : "early";
  for (const { label, unit, stat, value } of metricCsvCells(src)) {
    const scalar = stat === "Value";
    if (scalar) scalars.set(label.replace(/\s*\([^)]*\)\s*$/, ""), value);
    headlines.push({
      key: scalar ? label : `${label}/${stat}`,
      stage: "profiling",
      value,
      unit: stat === "count" ? "values" : unit,
      definition: `${scalar ? "" : `${STAT(stat)} of `}${label}: ${aiperfHeaderDefinition(label, form)}`,
    });
  }
  const lo = scalars.get("Minimum Request Timestamp") ?? null;
  const hi = scalars.get("Maximum Response Timestamp") ?? null;
  return {
    headlines,
    version: null,
    schema: null,
    model: null,
    concurrency: null,
    rate_rps: null,
    duration_s: form === "0.8" ? null : scalars.get("Benchmark Duration") ?? null,
    window_ns: lo !== null && hi !== null ? [lo, hi] : null,
    counts: {
      ok: scalars.get("Request Count") ?? null,
      error: scalars.get("Error Request Count") ?? null,
      cancelled: null,
    },
    notes: form === "0.8"
      ? [
        "The CSV is AIPerf 0.8's (a sum column): its rates are over the profiling phase's end_time − start_time, " +
        "which only profile_export_aiperf.json states; Benchmark Duration (first request → last response) is not " +
        "their window.",
      ]
      : [],
  };
}
