/**
 * Writes our own requests as vLLM would have saved them: the result JSON of `vllm bench serve --save-result
 * --save-detailed` (or of the legacy `benchmark_serving.py`), for the round trip through the vLLM reader.
 *
 * What vLLM cannot have: a never-sent request (not written); a schedule (none is written); the generated text (we
 * keep only its hash: written as ""); per-token times (the decode time is spread evenly over output_tokens − 1 gaps,
 * so ttft + Σ itls is our completion − send); a failure's times and output length (written as vLLM does: ttft 0, no
 * gaps, output length 0, the error text). `start_times` are our send times in seconds since the run's epoch, standing
 * for vLLM's time.perf_counter() (whose origin is arbitrary anyway).
 *
 * @module
 */
import type { RequestRow } from "../../schema/events.ts";
import { answered, epochMs, evenGaps, failureText, npSummary, sentRows } from "./_rows.ts";

/** Options of {@linkcode exportVllmBench}. */
export interface VllmExportOptions {
  /** The run's epoch (run.json `epoch_iso`): vLLM writes only the date the file was saved. */
  epoch_iso: string;
  /** @default "sim" */
  model?: string;
  /** The request rate the run was set to. @default "inf" */
  request_rate?: number | "inf";
  /** @default null */
  max_concurrency?: number | null;
  /**
   * Which version's file: "latest" (`vllm bench serve` with `failed`, `start_times`, `latencies`), "v0.10" (`vllm
   * bench serve` before start_times and latencies) or "legacy" (`benchmark_serving.py`: no failed, the
   * `request_goodput:` key). @default "latest"
   */
  form?: "latest" | "v0.10" | "legacy";
}

const s = (ms: number) => ms / 1000;

/** The text of vLLM's result JSON for our rows. */
export function exportVllmBench(rows: readonly RequestRow[], options: VllmExportOptions): string {
  const form = options.form ?? "latest";
  const sent = sentRows(rows);
  const ok = sent.map(answered);
  const ttfts = sent.map((r, i) => ok[i] ? s(r.first_token_ms! - r.first_sent_ms!) : 0);
  const itls = sent.map((r, i) => ok[i] ? evenGaps(r.completed_ms! - r.first_token_ms!, r.output_tokens).map(s) : []);
  const latencies = sent.map((r, i) => ok[i] ? s(r.completed_ms! - r.first_sent_ms!) : 0);
  const outputLens = sent.map((r, i) => ok[i] ? r.output_tokens : 0);
  const first = Math.min(...sent.map((r) => r.first_sent_ms!));
  const last = Math.max(...sent.map((r) => r.completed_ms ?? r.first_sent_ms!));
  const duration = s(last - first);
  const completed = ok.filter(Boolean).length;
  const totalIn = sent.reduce((a, r, i) => a + (ok[i] ? r.input_tokens : 0), 0);
  const totalOut = outputLens.reduce((a, b) => a + b, 0);
  const tpots = sent.flatMap((r, i) =>
    ok[i] && r.output_tokens > 1 ? [(latencies[i]! - ttfts[i]!) / (r.output_tokens - 1)] : []
  );
  const series: [string, number[]][] = [
    ["ttft", ttfts.filter((_, i) => ok[i])],
    ["tpot", tpots],
    ["itl", itls.filter((_, i) => ok[i]).flat()],
  ];
  const stats: Record<string, number> = {};
  for (const [name, values] of series) {
    const m = npSummary(values);
    stats[`mean_${name}_ms`] = m.mean * 1000;
    stats[`median_${name}_ms`] = m.median * 1000;
    stats[`std_${name}_ms`] = m.std * 1000;
    stats[`p99_${name}_ms`] = m.p99 * 1000;
  }
  const d = new Date(epochMs(options.epoch_iso));
  const pad = (n: number) => String(n).padStart(2, "0");
  const date = `${d.getUTCFullYear()}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}-` +
    `${pad(d.getUTCHours())}${pad(d.getUTCMinutes())}${pad(d.getUTCSeconds())}`;
  const model = options.model ?? "sim";
  const out: Record<string, unknown> = {
    date,
    ...(form === "legacy" ? {} : { endpoint_type: "openai" }),
    backend: "openai",
    ...(form === "legacy" ? {} : { label: null }),
    model_id: model,
    tokenizer_id: model,
    num_prompts: sent.length,
    request_rate: options.request_rate ?? "inf",
    burstiness: 1.0,
    max_concurrency: options.max_concurrency ?? null,
    duration,
    completed,
    ...(form === "legacy" ? {} : { failed: sent.length - completed }),
    total_input_tokens: totalIn,
    total_output_tokens: totalOut,
    request_throughput: completed / duration,
    [form === "legacy" ? "request_goodput:" : "request_goodput"]: null,
    output_throughput: totalOut / duration,
    total_token_throughput: (totalIn + totalOut) / duration,
    input_lens: sent.map((r) => r.input_tokens),
    output_lens: outputLens,
    ttfts,
    itls,
    ...(form === "latest" ? { latencies, start_times: sent.map((r) => s(r.first_sent_ms!)) } : {}),
    generated_texts: sent.map(() => ""),
    errors: sent.map((r, i) => ok[i] ? "" : failureText(r)),
    ...stats,
  };
  return JSON.stringify(out);
}
