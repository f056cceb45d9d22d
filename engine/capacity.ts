/**
 * An engine's capacity measured apart from the runner: closed loop, as many requests in flight as the server has
 * slots, each worker sending its next request the moment its last one ends, for a fixed window after a warm-up.
 * **Capacity is the completions per second over the window**: the answers (HTTP 200) whose last byte arrived inside
 * it, divided by its length — the saturation throughput the knee of an open-loop sweep over the same requests should
 * sit at. The benchmark (bench/engine_capacity.ts) and the knee's integration test (test/engine/knee_test.ts) both
 * measure through here; the caller says what each request is (its body), so the same requests as a run's can be sent.
 *
 * @module
 */

/** Options of {@linkcode closedLoopCapacity}. */
export interface CapacityOptions {
  /** The i-th request's body (JSON for `POST /v1/chat/completions`), i = 0, 1, 2, … across all workers. */
  body: (i: number) => string;
  /** Requests in flight at once: the server's slots. */
  concurrency: number;
  /** Seconds before the window: the slots fill and the first answers come back; nothing of it is counted. */
  warmupS: number;
  /** The window's length, s. */
  seconds: number;
  /** One request's longest wait, ms. @default 300000 */
  requestTimeoutMs?: number;
  /** Stops the measurement (requests in flight are aborted). */
  signal?: AbortSignal;
}

/** One finished request. */
interface Done {
  endMs: number;
  latencyMs: number;
  ok: boolean;
  prompt: number;
  completion: number;
  cached: number;
  finish: string;
  /** The error answer's status and first words, for a failed request. */
  error?: string;
}

/** What {@linkcode closedLoopCapacity} measured. */
export interface CapacityResult {
  /** How capacity is defined, in words (for a report or a test's message). */
  definition: string;
  concurrency: number;
  warmup_s: number;
  window_s: number;
  /** Answers (HTTP 200) that ended inside the window. */
  completions: number;
  /** Failed requests that ended inside the window. */
  errors: number;
  /** completions / window_s: the capacity. */
  completions_per_s: number;
  prompt_tokens_per_s: number;
  completion_tokens_per_s: number;
  mean_prompt_tokens: number;
  mean_completion_tokens: number;
  /** Σ cached prompt tokens / Σ prompt tokens of the window's answers (the engine's usage). */
  cached_prompt_share: number;
  /** Share of the window's answers that ended by themselves (finish_reason stop). */
  stopped_share: number;
  latency_p50_ms: number;
  latency_p95_ms: number;
  /** "N× status text" of each kind of failure in the window. */
  error_kinds: string[];
  /** `/proc/loadavg`'s 1, 5 and 15 min figures before and after (null where it cannot be read). */
  loadavg_before: string | null;
  loadavg_after: string | null;
}

/** The definition {@linkcode CapacityResult} states. */
export const CAPACITY_DEFINITION = "closed loop with as many requests in flight as the server has slots (each " +
  "worker sends its next request when its last one ends); capacity = answers (HTTP 200) whose last byte arrived " +
  "in the window after the warm-up ÷ the window's seconds";

function pct(sorted: number[], q: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]! : NaN;
}

/** An error's name and message with those of its causes (fetch's own message, "fetch failed", says nothing). */
function errorText(e: unknown): string {
  let text = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
  let cause = e instanceof Error ? e.cause : undefined;
  for (let depth = 0; cause instanceof Error && depth < 4; depth++, cause = cause.cause) {
    text += ` (cause ${cause.name}: ${cause.message})`;
  }
  return text.replaceAll("\n", " ");
}

/** `/proc/loadavg`'s first three figures, or null off Linux. */
export function loadavg(): string | null {
  try {
    return Deno.readTextFileSync("/proc/loadavg").split(" ").slice(0, 3).join(" ");
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return null;
    throw e;
  }
}

/** The usage and finish reason of an answer, streamed (SSE, usage in its last chunk) or whole. */
export function answerFacts(text: string): { prompt: number; completion: number; cached: number; finish: string } {
  interface Chunk {
    usage?: { prompt_tokens?: number; completion_tokens?: number; prompt_tokens_details?: { cached_tokens?: number } };
    choices?: { finish_reason?: string | null }[];
  }
  const chunks: Chunk[] = text.trimStart().startsWith("data:")
    ? text.split("\n").filter((l) => l.startsWith("data: ") && l !== "data: [DONE]").map((l) => JSON.parse(l.slice(6)))
    : [JSON.parse(text)];
  const usage = chunks.findLast((c) => c.usage)?.usage;
  const finish = chunks.map((c) => c.choices?.[0]?.finish_reason).findLast((f) => f) ?? "none";
  return {
    prompt: usage?.prompt_tokens ?? 0,
    completion: usage?.completion_tokens ?? 0,
    cached: usage?.prompt_tokens_details?.cached_tokens ?? 0,
    finish,
  };
}

/**
 * Measures the capacity of the engine at `url` (its `/v1/chat/completions`) closed loop: {@linkcode CAPACITY_DEFINITION}.
 */
export async function closedLoopCapacity(url: string, o: CapacityOptions): Promise<CapacityResult> {
  if (!(Number.isInteger(o.concurrency) && o.concurrency >= 1)) {
    throw new RangeError(`concurrency must be a positive integer, got ${o.concurrency}`);
  }
  if (!(o.seconds > 0 && o.warmupS >= 0)) {
    throw new RangeError(`seconds must be > 0 and warmupS ≥ 0, got ${o.seconds} and ${o.warmupS}`);
  }
  const loadBefore = loadavg();
  const t0 = performance.now();
  const endAt = t0 + (o.warmupS + o.seconds) * 1000;
  const done: Done[] = [];
  let next = 0;
  // A fresh connection per request: a pooled keep-alive connection the server closes as it is reused fails the request
  // before it reaches the server ("connection closed before message completed"), a client artefact counted as the
  // engine's error. Connecting on loopback costs nothing beside an LLM request's seconds.
  const client = Deno.createHttpClient({ poolMaxIdlePerHost: 0 });
  const worker = async () => {
    while (performance.now() < endAt && !o.signal?.aborted) {
      const body = o.body(next++);
      const sent = performance.now();
      const timeout = AbortSignal.timeout(o.requestTimeoutMs ?? 300_000);
      let status: number, text: string;
      try {
        const res = await fetch(`${url}/v1/chat/completions`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body,
          client,
          signal: o.signal ? AbortSignal.any([o.signal, timeout]) : timeout,
        });
        status = res.status;
        text = await res.text();
      } catch (e) {
        if (o.signal?.aborted) throw e;
        // A refused connection or a timeout is a failed request of the measurement, not its end.
        status = 0;
        text = errorText(e);
      }
      const end = performance.now();
      const ok = status >= 200 && status < 300;
      const facts = ok ? answerFacts(text) : { prompt: 0, completion: 0, cached: 0, finish: `http ${status}` };
      done.push({
        endMs: end - t0,
        latencyMs: end - sent,
        ok,
        ...facts,
        ...(ok ? {} : { error: `${status} ${text.slice(0, 240)}` }),
      });
    }
  };
  try {
    await Promise.all(Array.from({ length: o.concurrency }, worker));
  } finally {
    client.close();
  }
  const from = o.warmupS * 1000;
  const to = from + o.seconds * 1000;
  const inWindow = done.filter((d) => d.endMs >= from && d.endMs < to);
  const ok = inWindow.filter((d) => d.ok);
  const sum = (k: "prompt" | "completion" | "cached") => ok.reduce((s, d) => s + d[k], 0);
  const lat = ok.map((d) => d.latencyMs).sort((a, b) => a - b);
  return {
    definition: CAPACITY_DEFINITION,
    concurrency: o.concurrency,
    warmup_s: o.warmupS,
    window_s: o.seconds,
    completions: ok.length,
    errors: inWindow.length - ok.length,
    completions_per_s: ok.length / o.seconds,
    prompt_tokens_per_s: sum("prompt") / o.seconds,
    completion_tokens_per_s: sum("completion") / o.seconds,
    mean_prompt_tokens: sum("prompt") / (ok.length || 1),
    mean_completion_tokens: sum("completion") / (ok.length || 1),
    cached_prompt_share: sum("cached") / (sum("prompt") || 1),
    stopped_share: ok.filter((d) => d.finish === "stop").length / (ok.length || 1),
    latency_p50_ms: pct(lat, 0.5),
    latency_p95_ms: pct(lat, 0.95),
    error_kinds: Object.entries(
      Object.groupBy(inWindow.filter((d) => !d.ok), (d) => d.error!.replace(/\d+/g, "N")),
    ).map(([k, v]) => `${v!.length}× ${k}`),
    loadavg_before: loadBefore,
    loadavg_after: loadavg(),
  };
}

/**
 * How far a knee lies from a capacity measured twice (before and after a sweep, a and b) on cores that others share: the
 * capacity during the sweep is known only to lie between the two, so 0 within [min, max], else the distance to the
 * nearer end ÷ that end.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { capacityError } from "./capacity.ts";
 * assert.equal(capacityError(2.0, 1.8, 2.2), 0);
 * assert.equal(capacityError(2.5, 2.0, 1.5), 0.25); // above the range: (2.5 − 2.0) / 2.0
 * assert.equal(capacityError(1.5, 2.0, 3.0), 0.25); // below it: (2.0 − 1.5) / 2.0
 * ```
 */
export function capacityError(knee: number, a: number, b: number): number {
  const [lo, hi] = [Math.min(a, b), Math.max(a, b)];
  return knee < lo ? (lo - knee) / lo : knee > hi ? (knee - hi) / hi : 0;
}
