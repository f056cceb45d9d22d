/**
 * inference-perf (kubernetes-sigs/inference-perf): the per-stage and run lifecycle reports
 * (`stage_N_lifecycle_metrics.json`, `summary_lifecycle_metrics.json`) and the per-request output
 * (`per_request_lifecycle_metrics.json`), read into one {@linkcode SourceRun}.
 *
 * Without a per-request file the run is summary-only: the reports' numbers become headlines. With one, its records
 * are the requests; the per-request file names no stage, so when stage reports come with it, records are given to
 * stages by send order (stages run one after another) if the reports' counts add up to the records and each stage's
 * span of sends matches its report's `send_duration` — otherwise they stay unstaged, and a note says why.
 *
 * @module
 */
import { InputError } from "../../schema/errors.ts";
import type { SourceLack, SourceRequest, SourceRun } from "../source.ts";
import { noGates } from "./_lacks.ts";
import { baseName, fileEntry, type SourceText } from "./_source_text.ts";
import { readPerRequest, type TokenTimes } from "./inference_perf_requests.ts";
import { readLifecycleReport, type ReadReport, reportHeadlines, reportStage } from "./inference_perf_report.ts";

/** The label of a request the per-request file gives no stage to. */
export const UNSTAGED = "unstaged";

const STAGE_FILE = /stage_(\d+)_lifecycle_metrics\.json$/;
const SUMMARY_FILE = /summary_lifecycle_metrics\.json$/;
const PER_REQUEST_FILE = /per_request_lifecycle_metrics\.json$/;

/** What inference-perf's files lack, whatever was given. */
const ALWAYS_LACKS: SourceLack[] = [
  noGates(),
  {
    field: "offered requests",
    consequence: "a request is written when it finishes; one never sent, or still in flight when the run stopped, " +
      "is in no file, so the offered denominator is only what the tool recorded (load_summary.count)",
  },
  {
    field: "class, priority, route",
    consequence: "not recorded: every request is one class on one route",
  },
];

const PER_REQUEST_LACKS: SourceLack[] = [
  {
    field: "scheduled_ms",
    consequence: "the per-request file does not write scheduled_time: latency runs from send (start_time), so " +
      "coordinated omission cannot be checked request by request; only the stage reports' schedule_delay " +
      "distribution shows how late sends were",
  },
  {
    field: "epoch (wall-clock times)",
    consequence: "start_time and end_time are time.perf_counter() seconds with no epoch: the times are kept on that " +
      "clock (clock_ms), durations and gaps are exact, but no wall-clock window or run epoch can be stated",
  },
  {
    field: "token counts",
    consequence:
      "output tokens are the server's usage.completion_tokens when the record holds server_usage, else the " +
      "tool's own tokenizer count of the streamed text (token_source says which per request); the tool's own " +
      "aggregates use its tokenizer count unless it was run with use_server_output_tokens",
  },
];

const SUMMARY_ONLY_LACKS: SourceLack[] = [
  {
    field: "per-request records",
    consequence: "only aggregates (no per_request_lifecycle_metrics.json): the headlines can be quoted and checked " +
      "against each other, but no percentile or rate can be recomputed under another denominator, window or limit",
  },
  {
    field: "scheduled_ms",
    consequence:
      "latencies are from send; schedule_delay (start − scheduled) is given only as a distribution per stage",
  },
  {
    field: "token counts",
    consequence: "prompt_len, output_len and the token throughputs use the tool's tokenizer count (newer versions: " +
      "the server's usage when reported or configured); the server's own counts are not in the reports",
  },
];

/** Gives records to stages by send order when the stage reports' counts and send spans agree; else a note. */
function assignStages(requests: SourceRequest[], stages: ReadReport[], notes: string[]): void {
  for (const r of requests) r.stage = UNSTAGED;
  if (stages.length === 0) {
    notes.push("the per-request file names no stage and no stage report was given: every request is unstaged");
    return;
  }
  const total = stages.reduce((s, r) => s + r.report.load_summary.count, 0);
  if (total !== requests.length) {
    notes.push(
      `the stage reports count ${total} requests but the per-request file holds ${requests.length}: requests left ` +
        "unstaged (the files may come from different runs)",
    );
    return;
  }
  const bySend = [...requests].sort((a, b) => a.clock_ms!.sent! - b.clock_ms!.sent!);
  let k = 0;
  const plan: { stage: string; group: SourceRequest[] }[] = [];
  for (const s of stages) {
    const group = bySend.slice(k, k + s.report.load_summary.count);
    k += group.length;
    const sends = group.map((r) => r.clock_ms!.sent! / 1000);
    const span = sends.length ? Math.max(...sends) - Math.min(...sends) : 0;
    const stated = s.report.load_summary.send_duration;
    if (stated !== undefined && Math.abs(span - stated) > 1e-6) {
      notes.push(
        `${s.stage}: the ${group.length} requests sent in its turn span ${span} s of sends, but its report says ` +
          `send_duration ${stated} s: requests left unstaged`,
      );
      return;
    }
    plan.push({ stage: s.stage!, group });
  }
  for (const p of plan) for (const r of p.group) r.stage = p.stage;
  notes.push(
    "stages assigned by send order: the per-request file names no stage; each stage report's count of requests, " +
      "taken in start_time order, spans exactly its report's send_duration",
  );
}

/** Reads inference-perf files (any mix of stage reports, the run summary and the per-request file). */
export function readInferencePerf(files: SourceText[]): SourceRun {
  const reports: ReadReport[] = [];
  const perRequest: SourceText[] = [];
  for (const f of files) {
    const stage = STAGE_FILE.exec(f.path);
    if (PER_REQUEST_FILE.test(f.path)) perRequest.push(f);
    else if (stage) reports.push(readLifecycleReport(f, `stage_${stage[1]}`, Number(stage[1])));
    else if (SUMMARY_FILE.test(f.path)) reports.push(readLifecycleReport(f, null, null));
    else {
      throw new InputError(
        `${f.path}: not an inference-perf file name (expected stage_N_lifecycle_metrics.json, ` +
          "summary_lifecycle_metrics.json or per_request_lifecycle_metrics.json)",
      );
    }
  }
  if (perRequest.length > 1) {
    throw new InputError(`inference-perf: give one per_request_lifecycle_metrics.json, not ${perRequest.length}`);
  }
  const stageReports = reports.filter((r) => r.index !== null).sort((a, b) => a.index! - b.index!);
  const notes: string[] = [
    "the files do not state inference-perf's version; units are the tool's (s, tokens, per second)",
  ];
  const requests: SourceRequest[] = [];
  const lacks = [...ALWAYS_LACKS];
  if (perRequest[0]) {
    const read = readPerRequest(perRequest[0]);
    const from = new Map<TokenTimes, number>();
    for (const { token_times, ...r } of read) {
      requests.push(r);
      from.set(token_times, (from.get(token_times) ?? 0) + 1);
    }
    assignStages(requests, stageReports, notes);
    const fromText = [...from].map(([k, n]) => `${n} from ${k ?? "none (no token times)"}`).join(", ");
    notes.push(`first-token time and gaps per request: ${fromText}`);
    lacks.push(...PER_REQUEST_LACKS);
  } else {
    lacks.push(...SUMMARY_ONLY_LACKS);
  }
  return {
    tool: "inference-perf",
    tool_version: null,
    files: files.map((f) => fileEntry(f, formatOf(f.path))),
    model: null,
    stages: stageReports.map(reportStage),
    requests,
    summary_only: perRequest.length === 0,
    headlines: [...stageReports, ...reports.filter((r) => r.index === null)].flatMap(reportHeadlines),
    lacks,
    notes,
  };
}

function formatOf(path: string): string {
  const name = baseName(path);
  if (PER_REQUEST_FILE.test(name)) return "per_request_lifecycle_metrics.json";
  if (SUMMARY_FILE.test(name)) return "summary_lifecycle_metrics.json";
  return "stage_N_lifecycle_metrics.json";
}
