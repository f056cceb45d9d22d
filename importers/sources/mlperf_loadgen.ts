/**
 * MLPerf LoadGen (mlcommons/inference `loadgen/`): `mlperf_log_summary.txt` and `mlperf_log_detail.txt`, read into a
 * summary-only {@linkcode SourceRun}: neither log holds per-query records (those need `mlperf_log_trace.json` or
 * `print_timestamps`), so LoadGen's numbers become headlines under their own keys — the detail log's key when that log
 * is given (the summary's label otherwise) — and the summary cross-checks the detail log.
 *
 * @module
 */
import { InputError } from "../../schema/errors.ts";
import { agreeAtCoarser } from "../../lib/published_precision.ts";
import type { SourceHeadline, SourceLack, SourceRun, SourceStage } from "../source.ts";
import { baseName, fileEntry, type SourceText } from "./_source_text.ts";
import { readDetailLog, type ReadLog, readSummaryLog } from "./mlperf_parse.ts";
import { MLPERF_RULES, type MlperfRule } from "./mlperf_rules.ts";

const LACKS: SourceLack[] = [
  {
    field: "per-query records",
    consequence: "neither log holds per-query times (that needs mlperf_log_trace.json or print_timestamps): the run " +
      "is aggregate claims only; no percentile, rate or goodput can be recomputed under another limit or denominator",
  },
  {
    field: "failed requests",
    consequence: "LoadGen has no failure outcome: every issued query must complete, and num_errors counts log " +
      "errors, not failed queries; a SUT that answers badly is judged only by the separate accuracy run",
  },
  {
    field: "gates",
    consequence: "a PerformanceOnly log judges no output: quality (accuracy) is checked in another run, schema and " +
      "safety not at all — gates are n/a here, not passed",
  },
  {
    field: "token counts",
    consequence: "tokens per sample are what the SUT reported to LoadGen (its own tokenizer), not counted by LoadGen",
  },
  {
    field: "model",
    consequence: "the logs do not name the model or benchmark (only the submission's folder path does)",
  },
];

/** 1/0 for a yes/no word, else null. */
function yesNo(v: unknown): number | null {
  if (v === true || v === "VALID" || v === "Yes") return 1;
  if (v === false || v === "INVALID" || v === "NO") return 0;
  return null;
}

/** A headline from one rule and one value found. */
function headline(rule: MlperfRule, key: string, pct: string, value: unknown): SourceHeadline {
  const h: SourceHeadline = { key, stage: null, value: null, unit: rule.unit, definition: rule.definition(pct) };
  if (rule.text || typeof value !== "number") {
    h.text = String(value);
    h.value = yesNo(value);
  } else h.value = value;
  return h;
}

/** Every rule's headline: from the detail log when given, else from the summary. */
function headlines(detail: ReadLog | null, summary: ReadLog | null, notes: string[]): SourceHeadline[] {
  const out: SourceHeadline[] = [];
  for (const rule of MLPERF_RULES) {
    // The (label or key, percentile) pairs this rule matches in each log.
    const inSummary: [string, string][] = [];
    if (summary && typeof rule.summary === "string" && summary.values.has(rule.summary)) {
      inSummary.push([rule.summary, ""]);
    } else if (summary && rule.summary instanceof RegExp) {
      for (const k of summary.values.keys()) {
        const m = (rule.summary as RegExp).exec(k);
        if (m) inSummary.push([k, m[1]!]);
      }
    }
    const detailKey = (pct: string) => typeof rule.detail === "function" ? rule.detail(pct) : rule.detail;
    if (detail) {
      const pcts = typeof rule.detail === "function"
        ? [...detail.values.keys()].flatMap((k) => {
          const p = /(\d+\.\d+)/.exec(k)?.[1];
          return p && rule.detail !== null && detailKey(p) === k ? [p] : [];
        })
        : [""];
      for (const p of pcts) {
        const key = detailKey(p);
        if (key && detail.values.has(key)) out.push(headline(rule, key, p, detail.values.get(key)!.value));
      }
    }
    for (const [label, p] of inSummary) {
      const key = detailKey(p);
      const v = summary!.values.get(label)!.value;
      const d = detail && key ? detail.values.get(key) : undefined;
      if (!detail || d === undefined) out.push(headline(rule, label, p, v));
      else if (!agrees(v, d.value)) {
        notes.push(`the summary's "${label}" (${v}) disagrees with the detail log's ${key} (${d.value})`);
      }
    }
  }
  return out;
}

/**
 * Whether a summary value matches the detail log's at the coarser of the two printed precisions: the summary prints
 * fixed decimals (22020.92), the detail log 6 significant digits (22020.9) — one number, not a disagreement.
 */
function agrees(summaryValue: unknown, detailValue: unknown): boolean {
  if (typeof summaryValue === "number" && typeof detailValue === "number") {
    return agreeAtCoarser(String(summaryValue), String(detailValue));
  }
  return yesNo(summaryValue) !== null ? yesNo(summaryValue) === yesNo(detailValue) : String(summaryValue).trim() ===
    String(detailValue).trim();
}

/** Reads MLPerf LoadGen logs: a summary, a detail log, or both of one run. */
export function readMlperfLoadgen(files: SourceText[]): SourceRun {
  let summary: ReadLog | null = null;
  let detail: ReadLog | null = null;
  const formats: string[] = [];
  for (const f of files) {
    const isDetail = f.text.trimStart().startsWith(":::MLLOG");
    if (isDetail ? detail : summary) {
      throw new InputError(`mlperf-loadgen: give at most one summary and one detail log of one run (${f.path})`);
    }
    if (isDetail) detail = readDetailLog(f);
    else summary = readSummaryLog(f);
    formats.push(isDetail ? "mlperf_log_detail.txt" : "mlperf_log_summary.txt");
  }
  if (!summary && !detail) throw new InputError("mlperf-loadgen: no file given");
  const notes = [...(summary?.notes ?? []), ...(detail?.notes ?? [])];
  const get = (detailKey: string, summaryLabel: string) =>
    detail?.values.get(detailKey)?.value ?? summary?.values.get(summaryLabel)?.value;
  const scenario = String(get("effective_scenario", "Scenario"));
  const rate = get("effective_target_qps", "target_qps");
  const started = detail?.values.get("test_datetime")?.value;
  const stage: SourceStage = {
    name: scenario,
    rate_rps: typeof rate === "number" ? rate : null,
    concurrency: null,
    start_epoch_ms: typeof started === "string" && !Number.isNaN(Date.parse(started)) ? Date.parse(started) : null,
    end_epoch_ms: null,
    duration_s: null,
    totals: { ok: null, error: null, cancelled: null, incomplete: null },
  };
  if (detail) {
    notes.push(
      `${
        files.find((f) => f.text.trimStart().startsWith(":::MLLOG"))!.path
      }: the RNG seeds are 64-bit integers that JSON numbers cannot hold exactly; they are not read`,
    );
  }
  const version = detail?.values.get("loadgen_version")?.value;
  return {
    tool: "mlperf-loadgen",
    tool_version: typeof version === "string" ? version : null,
    files: files.map((f, i) => fileEntry(f, formats[i] ?? baseName(f.path))),
    model: null,
    stages: [stage],
    requests: [],
    summary_only: true,
    headlines: headlines(detail, summary, notes),
    lacks: LACKS,
    notes,
  };
}
