/**
 * vLLM's own definitions of the numbers in a `vllm bench serve` (and legacy `benchmark_serving.py`) result JSON, read
 * from vLLM's source: `vllm/benchmarks/serve.py` (`calculate_metrics`, `benchmark`, `main_async`),
 * `vllm/benchmarks/lib/endpoint_request_func.py` (what ttft, itl, latency and start_time are) and, for the legacy
 * script, `benchmarks/benchmark_serving.py`. Shared by the result-JSON reader and the llm-d report reader.
 *
 * @module
 */

/** The per-request quantities vLLM summarises as `mean_/median_/std_/pN_<name>_ms`. */
export const VLLM_METRICS: Record<string, string> = {
  ttft: "time to first token: from just before the HTTP POST (time.perf_counter()) to the first streamed chunk " +
    "carrying choices; successful requests only; no schedule, so a request held by --max-concurrency or a late " +
    "sender is timed from its actual send",
  tpot: "time per output token excluding the first: (latency − ttft) / (output_len − 1) per successful request with " +
    "output_len > 1, output_len from the server's usage or else the tool's tokenizer",
  itl: "inter-token latency: every gap between consecutive content chunks of every successful request, pooled into " +
    "one distribution (chunk-weighted; a chunk carrying several tokens counts once)",
  e2el: "end-to-end latency: from just before the HTTP POST to the last content chunk (the trailing usage chunk and " +
    "[DONE] excluded); successful requests only",
  client_queue_time: "client-side queueing: time a request waited for the --max-concurrency semaphore before its " +
    "POST (successful requests only; written only with --max-concurrency)",
  e2el_including_client_queue: "e2el plus the client queue time: latency from the moment the request was due " +
    "(successful requests only; written only with --max-concurrency and a finite --request-rate)",
};

/** What `mean_`, `median_`, `std_` and `pN_` mean in those keys (numpy over the successful requests' values). */
export function statWords(stat: string): string {
  if (stat === "mean") return "mean (numpy.mean)";
  if (stat === "median") return "median (numpy.median)";
  if (stat === "std") return "population standard deviation (numpy.std)";
  return `percentile ${stat.slice(1)} (numpy.percentile, linear interpolation)`;
}

/** vLLM's run-level numbers: unit and definition. */
export const VLLM_SCALARS: Record<string, { unit: string; definition: string }> = {
  duration: {
    unit: "s",
    definition: "benchmark duration: time.perf_counter() from just before the first request was dispatched to " +
      "after the last one finished (warm-up and the initial test prompt excluded)",
  },
  completed: { unit: "requests", definition: "successful requests (a streamed answer with at least one chunk)" },
  failed: {
    unit: "requests",
    definition: "requests that did not succeed (HTTP status other than 200, exception, no chunk); absent from the " +
      "legacy benchmark_serving.py output",
  },
  total_input_tokens: {
    unit: "tokens",
    definition: "sum of prompt lengths of the successful requests (the dataset's tokenizer count, replaced by the " +
      "server's usage.prompt_tokens when the stream reported it in newer versions)",
  },
  total_output_tokens: {
    unit: "tokens",
    definition: "sum of output lengths of the successful requests (usage.completion_tokens, or the tool's tokenizer " +
      "on the generated text when the server gave none)",
  },
  request_throughput: {
    unit: "req/s",
    definition: "completed / duration: successful requests per second; failed requests are in neither term",
  },
  request_goodput: {
    unit: "req/s",
    definition: "successful requests meeting every --goodput SLO (ttft, tpot, e2el, each ≤ its limit in ms) / " +
      "duration; failed requests are not in the numerator; null when no --goodput was given",
  },
  output_throughput: { unit: "tokens/s", definition: "total_output_tokens / duration" },
  total_token_throughput: { unit: "tokens/s", definition: "(total_input_tokens + total_output_tokens) / duration" },
  max_output_tokens_per_s: {
    unit: "tokens/s",
    definition: "peak count of chunk arrivals of successful requests in one 1-s bucket from the first send (each " +
      "chunk counted as one token)",
  },
  max_concurrent_requests: {
    unit: "requests",
    definition: "peak number of successful requests in flight at once (send to last chunk)",
  },
};
// The legacy script wrote the goodput under a key with a stray colon; the definition is the same.
VLLM_SCALARS["request_goodput:"] = VLLM_SCALARS.request_goodput!;

/** `mean_ttft_ms` → { metric: "ttft", stat: "mean" }; null for any other key. */
export function splitStatKey(key: string): { metric: string; stat: string } | null {
  const m = /^(mean|median|std|p[0-9.]+)_([a-z0-9_]+)_ms$/.exec(key);
  if (!m || !(m[2]! in VLLM_METRICS)) return null;
  return { stat: m[1]!, metric: m[2]! };
}
