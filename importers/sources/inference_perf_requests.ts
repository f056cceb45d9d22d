/**
 * inference-perf's per-request output (`per_request_lifecycle_metrics.json`): a JSON array, one object per recorded
 * request, `{start_time, end_time, request, response, info, error}` with `start_time`/`end_time` on the tool's
 * monotonic clock (`time.perf_counter()` seconds, no epoch). Versions differ inside `info`: older ones hold
 * `input_tokens`, `output_tokens`, `output_token_times`; later ones `request_metrics.text.input_tokens` and
 * `response_metrics{output_tokens, server_usage, response_chunks, chunk_times, output_token_times}`; the newest may
 * add `session_id` and `computed_metrics` (kubernetes-sigs/inference-perf `inference_perf/apis/base.py`,
 * `inference_perf/reportgen/base.py` `build_per_request_lifecycle_entry`).
 *
 * @module
 */
import { z } from "zod";
import { InputError } from "../../schema/errors.ts";
import type { SourceRequest } from "../source.ts";
import { checked, parseJson, type SourceText } from "./_source_text.ts";

const num = z.number().nullable().optional();
const times = z.array(z.number()).nullable().optional();

const PerRequestRecord = z.looseObject({
  start_time: z.number(),
  end_time: z.number(),
  scheduled_time: z.number().optional(),
  session_id: z.string().nullable().optional(),
  info: z.looseObject({
    input_tokens: num,
    output_tokens: num,
    output_token_times: times,
    request_metrics: z.looseObject({
      text: z.looseObject({ input_tokens: num }).nullable().optional(),
    }).nullable().optional(),
    response_metrics: z.looseObject({
      output_tokens: num,
      server_usage: z.record(z.string(), z.unknown()).nullable().optional(),
      response_chunks: z.array(z.string()).nullable().optional(),
      chunk_times: times,
      output_token_times: times,
    }).nullable().optional(),
  }).nullable().optional(),
  error: z.looseObject({ error_type: z.string(), error_msg: z.string().nullable().optional() }).nullable(),
  computed_metrics: z.record(z.string(), z.unknown()).nullable().optional(),
});
type PerRequestRecord = z.infer<typeof PerRequestRecord>;

/** The text of one SSE chunk, as inference-perf's `_extract_chunk_text` reads it (null: a chunk with no text). */
function chunkText(chunk: string): string | null {
  let data: unknown;
  try {
    data = JSON.parse(chunk);
  } catch {
    return null; // inference-perf skips a chunk it cannot parse the same way
  }
  if (data === null || typeof data !== "object") return null;
  const d = data as Record<string, unknown>;
  const choice = Array.isArray(d.choices) ? d.choices[0] as Record<string, unknown> | undefined : undefined;
  if (choice) {
    const delta = choice.delta as Record<string, unknown> | undefined;
    const text = choice.text ?? delta?.content;
    return typeof text === "string" && text !== "" ? text : null;
  }
  const delta = d.delta as Record<string, unknown> | undefined;
  return typeof delta?.text === "string" && delta.text !== "" ? delta.text : null;
}

/** Where a record's token timeline comes from, in the order the reader prefers it. */
export type TokenTimes = "output_token_times" | "text_chunk_times" | "chunk_times" | null;

/** The token (or chunk) arrival times of a record, s on the tool's clock, and where they come from. */
function tokenTimes(r: PerRequestRecord): { times: number[]; from: TokenTimes } {
  const rm = r.info?.response_metrics;
  const own = rm?.output_token_times ?? r.info?.output_token_times;
  if (own && own.length > 0) return { times: own, from: "output_token_times" };
  const chunks = rm?.chunk_times;
  if (!chunks || chunks.length === 0) return { times: [], from: null };
  const texts = rm?.response_chunks;
  if (texts && texts.length === chunks.length) {
    return { times: chunks.filter((_, i) => chunkText(texts[i]!) !== null), from: "text_chunk_times" };
  }
  return { times: chunks, from: "chunk_times" };
}

const usageCount = (u: Record<string, unknown> | null | undefined, keys: string[]): number | null => {
  for (const k of keys) if (typeof u?.[k] === "number") return u[k] as number;
  return null;
};

/** One record as a {@linkcode SourceRequest}; `stage` is assigned by the caller. */
function toRequest(r: PerRequestRecord, i: number, file: string): SourceRequest & { token_times: TokenTimes } {
  const rm = r.info?.response_metrics;
  const usage = rm?.server_usage;
  const toolIn = r.info?.request_metrics?.text?.input_tokens ?? r.info?.input_tokens ?? null;
  const toolOut = rm?.output_tokens ?? r.info?.output_tokens ?? null;
  const serverIn = usageCount(usage, ["prompt_tokens", "input_tokens"]);
  const serverOut = usageCount(usage, ["completion_tokens", "output_tokens"]);
  const { times, from } = tokenTimes(r);
  const first = times[0] ?? null;
  const ms = (s: number) => s * 1000;
  const e2e = ms(r.end_time - r.start_time);
  const http = r.error ? /HTTP Error (\d{3})/.exec(r.error.error_type) : null;
  const metrics: Record<string, number | null> = {
    "inference_perf.output_tokens_tokenizer": toolOut,
    "inference_perf.input_tokens": toolIn,
    "inference_perf.server_usage.prompt_tokens": serverIn,
    "inference_perf.server_usage.completion_tokens": serverOut,
  };
  if (r.error === null) {
    // The tool's own per-request figures (reportgen/base.py compute_request_latency_metrics), s → ms.
    metrics["inference_perf.normalized_time_per_output_token_ms"] = toolOut && toolOut > 0 ? e2e / toolOut : 0;
    metrics["inference_perf.time_per_output_token_ms"] = times.length > 1 && toolOut !== null && toolOut > 1
      ? ms(times[times.length - 1]! - times[0]!) / (toolOut - 1)
      : null;
  }
  for (const [k, v] of Object.entries(r.computed_metrics ?? {})) {
    if (typeof v === "number") {
      const tokens = /tokens$/.test(k);
      metrics[`inference_perf.computed_metrics.${tokens ? k : `${k.replace(/_sec$/, "")}_ms`}`] = tokens ? v : ms(v);
    }
  }
  return {
    id: r.session_id ? `${r.session_id}#${i}` : `#${i}`,
    at: `${file}: [${i}]`,
    stage: "",
    outcome: r.error === null ? "ok" : "error",
    tool_status: r.error === null ? null : r.error.error_type,
    http_status: http ? Number(http[1]) : null,
    scheduled_epoch_ms: null,
    sent_epoch_ms: null,
    first_token_epoch_ms: null,
    completed_epoch_ms: null,
    clock_ms: {
      scheduled: r.scheduled_time === undefined ? null : ms(r.scheduled_time),
      sent: ms(r.start_time),
      first_token: first === null ? null : ms(first),
      completed: ms(r.end_time),
    },
    ttft_ms: first === null ? null : ms(first - r.start_time),
    e2e_ms: e2e,
    itl_ms: times.length > 1 ? times.slice(1).map((t, k) => ms(t - times[k]!)) : null,
    input_tokens: serverIn ?? toolIn,
    output_tokens: serverOut ?? toolOut,
    token_source: serverOut !== null ? "server_usage" : toolOut !== null ? "tool_tokenizer" : null,
    tool_metrics: metrics,
    token_times: from,
  };
}

/** Reads a per-request file: every record checked (an InputError names `file: [i].key`), in file order. */
export function readPerRequest(file: SourceText): (SourceRequest & { token_times: TokenTimes })[] {
  const value = parseJson(file.text, file.path);
  if (!Array.isArray(value)) {
    throw new InputError(`${file.path}: inference-perf's per-request file is a JSON array of request records`);
  }
  return value.map((rec, i) =>
    toRequest(checked(PerRequestRecord, rec, file.path, { prefix: `[${i}]` }), i, file.path)
  );
}
