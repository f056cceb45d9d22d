/**
 * What each engine's own metrics say in the server table's columns (docs/server_metrics.md has the mapping as a
 * table). Only what the engine exposes is filled; every other column is written 0 and listed in run.json
 * `server_metrics.targets[].not_exposed`: 0 there means "not exposed", never a measured 0. A reading that lacks a
 * value an exposed column needs gives no row at all (counted), so no row holds a made-up value.
 *
 * @module
 */
import { type PromText, samplesOf, sumOf } from "../../lib/prometheus_text.ts";
import type { ServerRow } from "../../schema/mod.ts";

/** The measured columns of one server row (its run, time and route are the poller's). */
export type ServerCounts = Omit<ServerRow, "run_id" | "t_ms" | "route">;

/** Every measured column, in the contract's order. */
export const COUNT_COLUMNS: readonly (keyof ServerCounts)[] = [
  "queue_len",
  "oldest_queued_ms",
  "running",
  "replicas",
  "replicas_warming",
  "shed",
  "rate_limited",
  "errors",
  "admitted",
  "finished",
  "kv_tokens",
];

/** A row of zeros: the value of every column an engine does not expose. */
export function zeroCounts(): ServerCounts {
  return Object.fromEntries(COUNT_COLUMNS.map((c) => [c, 0])) as unknown as ServerCounts;
}

/** One reading of an engine: its metrics, its `/slots` answer (llama.cpp), and the reading before it (counters). */
export interface EngineReading {
  metrics: PromText;
  slots?: unknown;
  previous?: PromText | null;
}

/** A row, or why the reading gives none. */
export type EngineRow = { counts: ServerCounts } | { why: string };

/** An engine's mapping: the columns it fills and where from, and how a reading becomes a row. */
export interface EngineMapping {
  /** The columns it can fill, and where each comes from. */
  columns: Partial<Record<keyof ServerCounts, string>>;
  /** The columns one reading at detection time shows this server exposes (the rest are not exposed). */
  exposed(first: EngineReading): (keyof ServerCounts)[];
  /** The row of one reading, filling only `exposed` columns. */
  row(r: EngineReading, exposed: ReadonlySet<keyof ServerCounts>): EngineRow;
}

/** A non-negative integer from a gauge (rounded: Prometheus writes floats), or null when it is none. */
function gaugeCount(v: number | null): number | null {
  return v === null || !Number.isFinite(v) || v < 0 ? null : Math.round(v);
}

/** One llama.cpp slot's tokens in its context when it is processing a request: prompt + decoded. */
function slotTokens(slot: unknown): number | null {
  if (typeof slot !== "object" || slot === null) return null;
  const s = slot as Record<string, unknown>;
  if (s.is_processing !== true) return 0;
  const prompt = s.n_prompt_tokens;
  const next = Array.isArray(s.next_token) ? s.next_token[0] as Record<string, unknown> | undefined : undefined;
  const decoded = next?.n_decoded;
  if (!Number.isSafeInteger(prompt) || !Number.isSafeInteger(decoded)) return null;
  return (prompt as number) + (decoded as number);
}

/**
 * KV tokens of the sequences llama.cpp is processing: Σ over slots with `is_processing` of `n_prompt_tokens` +
 * `next_token[0].n_decoded`; null when `/slots` is not an array of slots.
 */
export function llamacppSlotTokens(slots: unknown): number | null {
  if (!Array.isArray(slots)) return null;
  let n = 0;
  for (const s of slots) {
    const t = slotTokens(s);
    if (t === null) return null;
    n += t;
  }
  return n;
}

/** llama.cpp `llama-server --metrics` (names read from a running server: test/fixtures/server_metrics/). */
export const LLAMACPP: EngineMapping = {
  columns: {
    queue_len: "llamacpp:requests_deferred (gauge: requests waiting for a free slot)",
    running: "llamacpp:requests_processing (gauge: requests in a slot)",
    kv_tokens: "GET /slots: Σ over slots with is_processing of n_prompt_tokens + next_token[0].n_decoded (the " +
      "context of the sequences being processed; what idle slots keep cached is not counted)",
  },
  exposed(first) {
    const cols: (keyof ServerCounts)[] = ["queue_len", "running"];
    if (llamacppSlotTokens(first.slots) !== null) cols.push("kv_tokens");
    return cols;
  },
  row(r, exposed) {
    const counts = zeroCounts();
    const queue = gaugeCount(sumOf(r.metrics, "llamacpp:requests_deferred"));
    const running = gaugeCount(sumOf(r.metrics, "llamacpp:requests_processing"));
    if (queue === null) return { why: "no llamacpp:requests_deferred" };
    if (running === null) return { why: "no llamacpp:requests_processing" };
    counts.queue_len = queue;
    counts.running = running;
    if (exposed.has("kv_tokens")) {
      const kv = llamacppSlotTokens(r.slots);
      if (kv === null) return { why: "/slots gave no slots" };
      counts.kv_tokens = kv;
    }
    return { counts };
  },
};

/** vLLM's KV cache capacity in tokens: `num_gpu_blocks` × `block_size` of `vllm:cache_config_info`, or null. */
export function vllmKvCapacity(t: PromText): number | null {
  const info = samplesOf(t, "vllm:cache_config_info")[0];
  const blocks = Number(info?.labels.num_gpu_blocks), size = Number(info?.labels.block_size);
  return Number.isSafeInteger(blocks) && Number.isSafeInteger(size) && blocks > 0 && size > 0 ? blocks * size : null;
}

/** vLLM's KV usage fraction: `vllm:kv_cache_usage_perc` (V1), or the older `vllm:gpu_cache_usage_perc`. */
function vllmKvUsage(t: PromText): number | null {
  return sumOf(t, "vllm:kv_cache_usage_perc") ?? sumOf(t, "vllm:gpu_cache_usage_perc");
}

/** vLLM's Prometheus names (docs.vllm.ai "Production Metrics"; tested on a hand-written fixture). */
export const VLLM: EngineMapping = {
  columns: {
    queue_len: "vllm:num_requests_waiting (gauge, summed over engines)",
    running: "vllm:num_requests_running (gauge, summed over engines)",
    kv_tokens: "vllm:kv_cache_usage_perc (or vllm:gpu_cache_usage_perc before V1; a 0–1 fraction, summed over " +
      "engines) × num_gpu_blocks × block_size of vllm:cache_config_info, rounded",
    finished: "the rise of vllm:request_success_total (every finished_reason) since the reading before",
  },
  exposed(first) {
    const cols: (keyof ServerCounts)[] = ["queue_len", "running"];
    if (vllmKvUsage(first.metrics) !== null && vllmKvCapacity(first.metrics) !== null) cols.push("kv_tokens");
    if (sumOf(first.metrics, "vllm:request_success_total") !== null) cols.push("finished");
    return cols;
  },
  row(r, exposed) {
    const counts = zeroCounts();
    const queue = gaugeCount(sumOf(r.metrics, "vllm:num_requests_waiting"));
    const running = gaugeCount(sumOf(r.metrics, "vllm:num_requests_running"));
    if (queue === null) return { why: "no vllm:num_requests_waiting" };
    if (running === null) return { why: "no vllm:num_requests_running" };
    counts.queue_len = queue;
    counts.running = running;
    if (exposed.has("kv_tokens")) {
      const usage = vllmKvUsage(r.metrics), capacity = vllmKvCapacity(r.metrics);
      if (usage === null || capacity === null || usage < 0) return { why: "no KV cache usage or capacity" };
      counts.kv_tokens = Math.round(usage * capacity);
    }
    if (exposed.has("finished")) {
      const now = sumOf(r.metrics, "vllm:request_success_total");
      const before = r.previous ? sumOf(r.previous, "vllm:request_success_total") : null;
      if (now === null || before === null) {
        return { why: "no vllm:request_success_total in this or the reading before" };
      }
      if (now < before) return { why: "vllm:request_success_total went backwards (a restart)" };
      counts.finished = Math.round(now - before);
    }
    return { counts };
  },
};

/** The mapping of each polled source. */
export const ENGINES: Record<"llamacpp" | "vllm", EngineMapping> = { llamacpp: LLAMACPP, vllm: VLLM };
