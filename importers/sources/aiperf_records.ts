/**
 * AIPerf's per-request export, `profile_export.jsonl`: one JSON object per line, `{metadata, metrics, error}`.
 *
 * Two forms are read. The early form (Oct 2025): `metadata.timestamp_ns` (request start, epoch ns) and
 * `credit_phase`; `error` null on success; every successful record also carries its own `min_request_timestamp` and
 * `max_response_timestamp`. The 0.8.0 form: `request_start_ns`, `request_ack_ns`, `request_end_ns`,
 * `credit_issued_ns` (epoch ns), `benchmark_phase` (warmup or profiling), `was_cancelled`; `error` absent on success.
 * Metrics are `{value, unit}`; `inter_chunk_latency` is a list. A cancelled request has error code 499
 * (`RequestCancellationError`), AIPerf's own code, not a server's answer.
 *
 * @module
 */
import { z } from "zod";
import { InputError } from "../../schema/errors.ts";
import type { SourceOutcome, SourceRequest } from "../source.ts";
import { issuePath, parseJson, problemsError, type SourceText } from "./_source_text.ts";
import { toMs, unitSuffix } from "./_aiperf_tags.ts";

const ns = z.number().nonnegative().optional();
const Metric = z.object({ value: z.union([z.number(), z.array(z.number())]), unit: z.string() });
const Line = z.object({
  metadata: z.looseObject({
    x_request_id: z.string().optional(),
    timestamp_ns: ns,
    request_start_ns: ns,
    request_ack_ns: ns,
    request_end_ns: ns,
    credit_issued_ns: ns,
    credit_phase: z.string().optional(),
    benchmark_phase: z.string().optional(),
    was_cancelled: z.boolean().optional(),
  }),
  metrics: z.record(z.string(), Metric),
  error: z.object({ code: z.number().int().nullable(), type: z.string(), message: z.string() }).nullable().optional(),
});
type Line = z.infer<typeof Line>;

/** The records of a profile_export.jsonl and which form they are in. */
export interface AiperfRecords {
  requests: SourceRequest[];
  form: "early" | "0.8";
  notes: string[];
}

const CANCEL = "RequestCancellationError";

function request(rec: Line, at: string): SourceRequest {
  const md = rec.metadata;
  const m = rec.metrics;
  const ms = (tag: string): number | null => {
    const x = m[tag];
    if (x === undefined || Array.isArray(x.value)) return null;
    const v = toMs(x.value, x.unit);
    if (v === null) {
      throw new InputError(`${at}: metrics.${tag}: unit "${x.unit}" where a time (ms, ns, s) is expected`);
    }
    return v;
  };
  const n = (tag: string): number | null => {
    const x = m[tag];
    return x === undefined || Array.isArray(x.value) ? null : x.value;
  };
  const err = rec.error ?? null;
  const outcome: SourceOutcome = md.was_cancelled || err?.type === CANCEL || err?.code === 499
    ? "cancelled"
    : err
    ? "error"
    : "ok";
  const startNs = md.request_start_ns ?? md.timestamp_ns ?? null;
  const sent = startNs === null ? null : startNs / 1e6;
  const ttft = ms("time_to_first_token") ?? ms("ttft");
  const e2e = ms("request_latency");
  const completed = md.request_end_ns !== undefined
    ? md.request_end_ns / 1e6
    : sent !== null && e2e !== null
    ? sent + e2e
    : null;
  const usage = n("usage_prompt_tokens") !== null || n("usage_completion_tokens") !== null;
  const icl = m.inter_chunk_latency;
  const tool: Record<string, number | null> = {};
  for (const [tag, x] of Object.entries(m)) {
    if (!Array.isArray(x.value)) tool[`aiperf.${tag}_${unitSuffix(x.unit)}`] = x.value;
  }
  if (md.credit_issued_ns !== undefined) tool["aiperf.credit_issued_epoch_ms"] = md.credit_issued_ns / 1e6;
  if (md.request_ack_ns !== undefined) tool["aiperf.request_ack_epoch_ms"] = md.request_ack_ns / 1e6;
  return {
    id: md.x_request_id ?? at,
    at,
    stage: md.benchmark_phase ?? md.credit_phase ?? "profiling",
    outcome,
    tool_status: err
      ? `${err.code ?? ""} ${err.type}: ${err.message}`.trim()
      : md.was_cancelled
      ? "was_cancelled"
      : null,
    http_status: err && outcome === "error" && err.code !== null && err.code >= 100 && err.code < 600 ? err.code : null,
    scheduled_epoch_ms: null,
    sent_epoch_ms: sent,
    first_token_epoch_ms: sent !== null && ttft !== null ? sent + ttft : null,
    completed_epoch_ms: outcome === "ok" ? completed : null,
    ttft_ms: ttft,
    e2e_ms: outcome === "ok" ? e2e : null,
    itl_ms: icl && Array.isArray(icl.value) ? icl.value.map((v) => toMs(v, icl.unit) ?? v) : null,
    input_tokens: usage ? n("usage_prompt_tokens") : n("input_sequence_length"),
    output_tokens: usage ? n("usage_completion_tokens") : n("output_sequence_length"),
    token_source: usage ? "server_usage" : n("input_sequence_length") !== null ? "tool_tokenizer" : null,
    tool_metrics: tool,
  };
}

/** Reads every line of a profile_export.jsonl; a bad line is an InputError naming the file and line. */
export function readAiperfRecords(src: SourceText): AiperfRecords {
  const lines = src.text.split(/\r?\n/);
  const requests: SourceRequest[] = [];
  const problems: string[] = [];
  let early = 0;
  for (const [i, text] of lines.entries()) {
    if (!text.trim()) continue;
    const at = `${src.path}:${i + 1}`;
    let value: unknown;
    try {
      value = parseJson(text, src.path, { line: i + 1 });
    } catch (e) {
      if (!(e instanceof InputError)) throw e;
      problems.push(e.message);
      continue;
    }
    const r = Line.safeParse(value);
    if (!r.success) {
      problems.push(...r.error.issues.slice(0, 3).map((x) => `${at}: ${issuePath(x.path)}: ${x.message}`));
      continue;
    }
    if (r.data.metadata.request_start_ns === undefined && r.data.metadata.timestamp_ns === undefined) {
      problems.push(`${at}: metadata: neither request_start_ns nor timestamp_ns (no send time)`);
      continue;
    }
    if (r.data.metadata.request_start_ns === undefined) early++;
    requests.push(request(r.data, at));
  }
  if (problems.length) {
    throw problemsError(`${src.path}: not an AIPerf profile_export.jsonl`, problems);
  }
  if (!requests.length) throw new InputError(`${src.path}: no records`);
  const form = early === requests.length ? "early" : "0.8";
  const notes: string[] = [];
  if (form === "early") {
    notes.push(
      "Early-form records: min_request_timestamp and max_response_timestamp on each record are that " +
        "record's own send and last-response times, not the run's.",
    );
  }
  const warm = requests.filter((q) => q.stage === "warmup").length;
  if (warm) notes.push(`${warm} warmup record(s): AIPerf's profiling aggregates leave them out.`);
  return { requests, form, notes };
}
