/**
 * Reader of GenAI-Perf's summary exports (triton-inference-server/perf_analyzer genai-perf): any of
 * `profile_export_genai_perf.json` — `{<metric>: {unit, avg, min, max, p1 … p99, std}, …, input_config: {…}}`, the
 * run-level metrics (request_throughput, request_goodput, request_count, output_token_throughput) with `avg` only
 * (genai_perf/metrics/statistics.py Statistics, export_data/json_exporter.py) — and `profile_export_genai_perf.csv`
 * (a `Metric,avg,min,max,p99,…,p1` block, an empty line, a `Metric,Value` block; the unit only in the label:
 * export_data/csv_exporter.py). Summary only: the per-request timestamps are in perf_analyzer's own
 * profile_export.json, which this reader does not take.
 *
 * @module
 */
import { z } from "zod";
import { InputError } from "../../schema/errors.ts";
import type { SourceFile, SourceHeadline, SourceLack, SourceRun } from "../source.ts";
import { noGates } from "./_lacks.ts";
import { metricCsvCells } from "./_metric_csv.ts";
import { checked, loadSourceTexts, parseJson, type SourceText } from "./_source_text.ts";

const STAGE = "profile";
const STATS = ["avg", "min", "max", "p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95", "p99", "std"];
const STAT = (s: string) =>
  s === "avg"
    ? "mean"
    : s === "std"
    ? "standard deviation"
    : s === "min"
    ? "minimum"
    : s === "max"
    ? "maximum"
    : `percentile ${s.slice(1)} (numpy.percentile, linear)`;

/** GenAI-Perf's definitions (genai_perf/profile_data_parser/llm_profile_data_parser.py, metrics/*.py). */
const DEFINITIONS: Record<string, string> = {
  request_throughput: "requests in perf_analyzer's export / (last response − first request), s",
  output_token_throughput: "sum of output_sequence_length / (last response − first request), s",
  request_goodput: "requests meeting every --goodput limit / (last response − first request), s",
  request_count: "requests in perf_analyzer's export (its measurement windows)",
  request_latency: "last response − request timestamp, per request",
  time_to_first_token: "first response − request timestamp, per streamed request",
  time_to_second_token: "second response − first response, per streamed request",
  inter_token_latency: "per request: (request_latency − time_to_first_token) / (output_sequence_length − 1)",
  output_token_throughput_per_user: "1 / inter_token_latency in seconds, per request",
  output_sequence_length: "output tokens per request (GenAI-Perf's tokenizer)",
  input_sequence_length: "input tokens per request (GenAI-Perf's tokenizer)",
};
const define = (metric: string) =>
  DEFINITIONS[metric] ?? "a GenAI-Perf metric with no definition in this reader's table (see genai-perf/docs)";
/** "Time To First Token (ms)" → "time_to_first_token" (csv_exporter's title case undone). */
const metricOf = (label: string) => label.replace(/\s*\([^)]*\)\s*$/, "").trim().toLowerCase().replace(/ +/g, "_");

const MetricDict = z.looseObject({ unit: z.string(), avg: z.number().nullable().optional() });
const Export = z.looseObject({
  input_config: z.looseObject({ model_names: z.array(z.string()).optional() }).optional(),
});

interface Summary {
  headlines: SourceHeadline[];
  count: number | null;
  model: string | null;
}

function readJson(src: SourceText): Summary {
  const raw = parseJson(src.text, src.path) as Record<string, unknown>;
  const s = checked(Export, raw, src.path, { what: "GenAI-Perf profile_export_genai_perf.json" });
  const headlines: SourceHeadline[] = [];
  for (const [metric, d] of Object.entries(raw)) {
    if (metric === "input_config" || metric === "sessions" || metric === "telemetry_stats") continue;
    const m = MetricDict.safeParse(d);
    if (!m.success) continue;
    const scalar = typeof (d as Record<string, unknown>).p50 !== "number";
    for (const stat of STATS) {
      const v = (d as Record<string, unknown>)[stat];
      if (typeof v !== "number") continue;
      headlines.push({
        key: `${metric}.${stat}`,
        stage: STAGE,
        value: v,
        unit: m.data.unit,
        definition: `${scalar ? "value" : STAT(stat)} of ${metric}: ${define(metric)}`,
      });
    }
  }
  if (!headlines.length) {
    throw new InputError(`${src.path}: no metric dict ({unit, avg, …}) at the top level: not a GenAI-Perf export`);
  }
  const count = (raw.request_count as { avg?: unknown } | undefined)?.avg;
  return {
    headlines,
    count: typeof count === "number" ? count : null,
    model: s.input_config?.model_names?.[0] ?? null,
  };
}

function readCsv(src: SourceText): Summary {
  const headlines: SourceHeadline[] = [];
  let count: number | null = null;
  // A telemetry block (GPU metrics) may follow: read the two blocks genai-perf always writes, stop at another.
  for (
    const { label, unit, stat, value } of metricCsvCells(src, { missing: ["N/A"], thousands: true, other: "stop" })
  ) {
    const scalar = stat === "Value";
    if (scalar && metricOf(label) === "request_count") count = value;
    headlines.push({
      key: scalar ? label : `${label}/${stat}`,
      stage: STAGE,
      value,
      unit,
      definition: `${scalar ? "" : `${STAT(stat)} of `}${label}: ${define(metricOf(label))} (printed with 2 decimals)`,
    });
  }
  return { headlines, count, model: null };
}

const LACKS: SourceLack[] = [
  {
    field: "per-request records",
    consequence: "Aggregates only (perf_analyzer's profile_export.json holds the timestamps): percentiles under " +
      "other rules, goodput under another SLO and the offered denominator cannot be recomputed; the tool's numbers " +
      "stand as aggregate claims.",
  },
  {
    field: "scheduled_ms",
    consequence: "GenAI-Perf keeps no intended send time: its latencies run from the request's timestamp (the " +
      "send), so coordinated omission is possible.",
  },
  {
    field: "failed requests",
    consequence: "The summary states no count of failed requests: request_count is the requests in perf_analyzer's " +
      "export, and every statistic is over them.",
  },
  {
    field: "token counts",
    consequence: "Sequence lengths are GenAI-Perf's tokenizer counts, not the server's usage.",
  },
  noGates(),
];

/** Reads GenAI-Perf's profile_export_genai_perf.json and/or .csv (paths). */
export async function readGenaiPerf(files: string[]): Promise<SourceRun> {
  return parseGenaiPerf(await loadSourceTexts(files));
}

/** Parses GenAI-Perf export files already read: at most one .json and one .csv. */
export function parseGenaiPerf(sources: SourceText[]): SourceRun {
  if (!sources.length) throw new InputError("genai-perf: give profile_export_genai_perf.json and/or .csv");
  let json: SourceText | null = null;
  let csv: SourceText | null = null;
  for (const s of sources) {
    const kind = s.path.endsWith(".json") ? "json" : s.path.endsWith(".csv") ? "csv" : null;
    if (!kind) {
      throw new InputError(`${s.path}: not a GenAI-Perf export (expected profile_export_genai_perf.json/.csv)`);
    }
    const had = kind === "json" ? json : csv;
    if (had) throw new InputError(`${s.path}: a second .${kind} file (${had.path} already given): one run at a time`);
    if (kind === "json") json = s;
    else csv = s;
  }
  const j = json ? readJson(json) : null;
  const c = csv ? readCsv(csv) : null;
  const files: SourceFile[] = [
    ...(json ? [{ path: json.path, sha256: json.sha256, format: "profile_export_genai_perf.json" }] : []),
    ...(csv ? [{ path: csv.path, sha256: csv.sha256, format: "profile_export_genai_perf.csv (two blocks)" }] : []),
  ];
  const count = j?.count ?? c?.count ?? null;
  return {
    tool: "genai-perf",
    tool_version: null,
    files,
    model: j?.model ?? null,
    stages: [{
      name: STAGE,
      rate_rps: null,
      concurrency: null,
      start_epoch_ms: null,
      end_epoch_ms: null,
      duration_s: null,
      totals: { ok: count === null ? null : Math.round(count), error: null, cancelled: null, incomplete: null },
    }],
    requests: [],
    summary_only: true,
    headlines: [...j?.headlines ?? [], ...c?.headlines ?? []],
    lacks: LACKS,
    notes: ["GenAI-Perf writes no version and no duration in its summary exports."],
  };
}
