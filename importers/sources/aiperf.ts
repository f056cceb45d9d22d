/**
 * Reader of an AIPerf run's exports: any of `profile_export.jsonl` (per-request records, `aiperf_records.ts`),
 * `profile_export_aiperf.json` and `profile_export_aiperf.csv` (aggregates, `aiperf_summary.ts`), at most one of each,
 * told apart by their extension. Without the JSONL the run is summary-only.
 *
 * @module
 */
import { InputError } from "../../schema/errors.ts";
import type { SourceFile, SourceLack, SourceRun, SourceStage } from "../source.ts";
import { noGates } from "./_lacks.ts";
import { loadSourceTexts, type SourceText } from "./_source_text.ts";
import { type AiperfRecords, readAiperfRecords } from "./aiperf_records.ts";
import { type AiperfSummary, readAiperfCsv, readAiperfJson } from "./aiperf_summary.ts";

/** Reads an AIPerf run from its export files (paths). */
export async function readAiperf(files: string[]): Promise<SourceRun> {
  return parseAiperf(await loadSourceTexts(files));
}

const kindOf = (path: string) =>
  path.endsWith(".jsonl") ? "jsonl" : path.endsWith(".json") ? "json" : path.endsWith(".csv") ? "csv" : null;

/** Parses AIPerf export files already read. */
export function parseAiperf(sources: SourceText[]): SourceRun {
  if (!sources.length) throw new InputError("aiperf: give profile_export.jsonl and/or profile_export_aiperf.json/.csv");
  const by: Partial<Record<"jsonl" | "json" | "csv", SourceText>> = {};
  for (const s of sources) {
    const kind = kindOf(s.path);
    if (!kind) throw new InputError(`${s.path}: not an AIPerf export (expected .jsonl, .json or .csv)`);
    if (by[kind]) {
      throw new InputError(`${s.path}: a second .${kind} file (${by[kind]!.path} already given): one run at a time`);
    }
    by[kind] = s;
  }
  const records: AiperfRecords | null = by.jsonl ? readAiperfRecords(by.jsonl) : null;
  const json: AiperfSummary | null = by.json ? readAiperfJson(by.json) : null;
  const csv: AiperfSummary | null = by.csv ? readAiperfCsv(by.csv) : null;
  const summary = json ?? csv;
  const files: SourceFile[] = [];
  if (by.jsonl) {
    files.push({
      path: by.jsonl.path,
      sha256: by.jsonl.sha256,
      format: records!.form === "early"
        ? "profile_export.jsonl (early form: timestamp_ns, credit_phase, error null on success)"
        : "profile_export.jsonl (0.8 form: *_ns lifecycle times, benchmark_phase, no error key on success)",
    });
  }
  if (by.json) {
    files.push({
      path: by.json.path,
      sha256: by.json.sha256,
      format: `profile_export_aiperf.json (${
        json!.schema ? `flat form, schema_version ${json!.schema}` : "records form"
      })`,
    });
  }
  if (by.csv) {
    files.push({ path: by.csv.path, sha256: by.csv.sha256, format: "profile_export_aiperf.csv (two blocks)" });
  }

  const requests = records?.requests ?? [];
  const phases = [...new Set(requests.map((q) => q.stage))];
  if (!phases.includes("profiling")) phases.push("profiling");
  const stages: SourceStage[] = phases.map((name) => {
    const mine = requests.filter((q) => q.stage === name);
    const sent = mine.flatMap((q) => q.sent_epoch_ms ?? []);
    const done = mine.flatMap((q) => q.completed_epoch_ms ?? []);
    const tool = name === "profiling" ? summary : null;
    return {
      name,
      rate_rps: tool?.rate_rps ?? null,
      concurrency: tool?.concurrency ?? null,
      start_epoch_ms: tool?.window_ns ? tool.window_ns[0] / 1e6 : sent.length ? Math.min(...sent) : null,
      end_epoch_ms: tool?.window_ns ? tool.window_ns[1] / 1e6 : done.length ? Math.max(...done) : null,
      duration_s: tool?.duration_s ?? null,
      totals: {
        ok: tool?.counts.ok ?? null,
        error: tool?.counts.error ?? null,
        cancelled: tool?.counts.cancelled ?? null,
        incomplete: null,
      },
    };
  });
  const notes = [...records?.notes ?? [], ...json?.notes ?? []];
  if (!json && csv) {
    notes.push(
      "Error Request Count (CSV) includes cancelled requests; the CSV does not split them (the JSON's " +
        "error_summary does).",
    );
  }
  const counted = summary?.counts.ok;
  const ok = requests.filter((q) => q.outcome === "ok" && q.stage === "profiling").length;
  if (records && counted != null && counted !== ok) {
    notes.push(`The JSONL holds ${ok} successful profiling records, but request_count says ${counted}.`);
  }
  return {
    tool: "aiperf",
    tool_version: json?.version ?? null,
    files,
    model: json?.model ?? null,
    stages,
    requests,
    summary_only: records === null,
    headlines: [...json?.headlines ?? [], ...csv?.headlines ?? []],
    lacks: aiperfLacks(records),
    notes,
  };
}

function aiperfLacks(records: AiperfRecords | null): SourceLack[] {
  const lacks: SourceLack[] = [{
    field: "scheduled_ms",
    consequence: "AIPerf keeps no intended send time" + (records?.form === "0.8"
      ? " (credit_issued_ns is when its timing manager released the request to a worker, not a planned time)"
      : "") +
      ": latency runs from the request start, so coordinated omission is possible; a concurrency-mode " +
      "run has no schedule at all.",
  }];
  if (!records) {
    lacks.push({
      field: "per-request records",
      consequence: "Aggregates only (no profile_export.jsonl): percentiles under other rules, goodput under another " +
        "SLO and the offered denominator cannot be recomputed; the tool's numbers stand as aggregate claims.",
    });
  }
  lacks.push({
    field: "failed requests",
    consequence: records
      ? "Errored and cancelled requests are listed with their send time and error, no latency" +
        (records.form === "early" ? " and no end time" : "") + "; AIPerf's request_count, throughputs and " +
        "latency statistics cover successful requests only."
      : "Failed and cancelled requests are counted (error_request_count, error_summary), none of their times: " +
        "every latency statistic covers successful requests only.",
  });
  lacks.push({
    field: "token counts",
    consequence: "input/output_sequence_length are AIPerf's tokenizer counts (output includes reasoning tokens) " +
      "unless the run used --use-server-token-count; the usage_* metrics of the 0.8 form are the server's, and are " +
      "used for a record's token counts when present.",
  });
  lacks.push(noGates());
  return lacks;
}
