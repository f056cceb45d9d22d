/**
 * The per-request arrays of a vLLM result JSON saved with `--save-detailed`: one entry per request, in dispatch
 * order, for every request, failed ones included (vllm/benchmarks/serve.py, `benchmark()`).
 *
 * Which arrays a version writes: `input_lens`, `output_lens`, `ttfts`, `itls`, `generated_texts`, `errors` in every
 * version (legacy benchmark_serving.py included); newer `vllm bench serve` adds `start_times` (dropped without
 * `--save-detailed`), `latencies` and `queue_times` (kept even without it). Units: seconds (ttfts, itls, latencies,
 * start_times, queue_times), tokens (lens). A failed request has ttft 0, no itls, output_len 0 and its error text
 * (an HTTP reason phrase or a traceback; empty when the server sent no reason).
 *
 * @module
 */
import { z } from "zod";
import type { SourceRequest } from "../source.ts";

const seconds = z.number().finite().nonnegative();
const tokens = z.number().int().nonnegative();

/** The arrays, each optional (a summary file has none); their lengths must agree. */
export const VllmArrays = z.object({
  input_lens: z.array(tokens).optional(),
  output_lens: z.array(tokens).optional(),
  ttfts: z.array(seconds).optional(),
  itls: z.array(z.array(z.number().finite())).optional(),
  generated_texts: z.array(z.string().nullable()).optional(),
  errors: z.array(z.string().nullable()).optional(),
  start_times: z.array(z.number().finite()).optional(),
  latencies: z.array(seconds).optional(),
  queue_times: z.array(z.number().finite()).optional(),
});
export type VllmArrays = z.infer<typeof VllmArrays>;

/** The arrays without which no request can be rebuilt. */
export const REQUIRED_ARRAYS = ["input_lens", "output_lens", "ttfts", "itls", "errors"] as const;

/** True when the file holds the `--save-detailed` arrays (newer versions keep `latencies` without them). */
export const hasDetail = (a: VllmArrays): boolean => REQUIRED_ARRAYS.some((k) => a[k] !== undefined);

/** Where a request sits, for errors and readers. */
const at = (path: string, i: number) => `${path}: request ${i} of the per-request arrays`;

/** How vLLM marks a failure: an error text, or (empty reason) ttft 0 with no chunk and no output. */
function failed(a: VllmArrays, i: number): boolean {
  const err = a.errors?.[i];
  if (err) return true;
  return a.ttfts![i] === 0 && a.itls![i]!.length === 0 && a.output_lens![i] === 0;
}

/**
 * Rebuilds one {@linkcode SourceRequest} per array index. Durations only: vLLM keeps no wall-clock time per request;
 * `start_times` (perf_counter seconds) go to `sent_clock_ms`. e2e is `latencies[i]` when written, else
 * ttft + Σ itls, which is the same quantity in vllm/benchmarks/lib/endpoint_request_func.py (latency = last
 * content chunk − send; each itl = chunk − previous chunk).
 */
export function vllmRequests(a: VllmArrays, path: string, stage: string): SourceRequest[] {
  const n = a.ttfts!.length;
  const out: SourceRequest[] = [];
  for (let i = 0; i < n; i++) {
    const bad = failed(a, i);
    const ttft = a.ttfts![i]!;
    const itl = a.itls![i]!;
    const latency = a.latencies?.[i];
    const e2e = latency !== undefined ? latency * 1000 : ttft * 1000 + itl.reduce((s, x) => s + x * 1000, 0);
    const start = a.start_times?.[i];
    const queue = a.queue_times?.[i];
    const req: SourceRequest = {
      id: `#${i}`,
      at: at(path, i),
      stage,
      outcome: bad ? "error" : "ok",
      tool_status: bad ? (a.errors?.[i] || null) : null,
      http_status: null,
      scheduled_epoch_ms: null,
      sent_epoch_ms: null,
      first_token_epoch_ms: null,
      completed_epoch_ms: null,
      ttft_ms: bad ? null : ttft * 1000,
      e2e_ms: bad ? null : e2e,
      itl_ms: bad ? null : itl.map((x) => x * 1000),
      input_tokens: a.input_lens![i]!,
      // vLLM writes 0 for a failed request whatever it streamed before failing: not a count.
      output_tokens: bad ? null : a.output_lens![i]!,
      token_source: null,
      tool_metrics: queue === undefined ? {} : { "vllm.client_queue_time_ms": queue * 1000 },
    };
    if (start !== undefined) req.sent_clock_ms = start * 1000;
    out.push(req);
  }
  return out;
}

/** Problems with the arrays' presence and lengths, each naming the file and the array. */
export function arrayProblems(a: VllmArrays, path: string): string[] {
  const present = Object.entries(a).filter(([, v]) => v !== undefined) as [string, unknown[]][];
  if (!hasDetail(a)) return [];
  const problems: string[] = [];
  for (const k of REQUIRED_ARRAYS) {
    if (a[k] === undefined) problems.push(`${path}: ${k}: missing (the other per-request arrays are present)`);
  }
  const n = a.ttfts?.length ?? present[0]![1].length;
  for (const [k, v] of present) {
    if (v.length !== n) problems.push(`${path}: ${k}: ${v.length} entries, but ttfts has ${n}`);
  }
  return problems;
}
