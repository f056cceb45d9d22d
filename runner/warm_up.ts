import { createHash } from "node:crypto";
import type { ScheduledRequest, WorkloadCase } from "../schema/mod.ts";
import { evaluateChecks } from "./checks/mod.ts";
import { SseDecoder } from "./http/sse.ts";
import { chatBody, ResponseState, type WireMessage } from "./dialects/openai_chat.ts";

const enc = new TextEncoder();

/** The most synthetic answers {@linkcode warmUp} reads: enough for V8 to optimise the response path. */
export const WARM_UP_MAX = 1500;
/** The fewest: the first answers' code is compiled before ms 0 at any rate. */
export const WARM_UP_MIN = 50;

/**
 * How many synthetic answers to warm up on for an open loop's schedule: as many as it has arrivals in its first
 * second, within [{@linkcode WARM_UP_MIN}, {@linkcode WARM_UP_MAX}]. A slow schedule has time between its first
 * arrivals for the code still being compiled (at 50 req/s, 20 ms each); a fast one needs the code optimised before its
 * first arrivals. (1,500 answers cost ~55 ms of CPU here, against ~0.9 s for a whole 6 s run at 50 req/s.)
 *
 * @example A slow schedule warms up on fewer answers than a fast one
 * ```ts
 * import { warmUpAnswers } from "./warm_up.ts";
 * import assert from "node:assert/strict";
 * const at = (rate: number, n: number) => Array.from({ length: n }, (_, i) => ({ scheduled_ms: (i * 1000) / rate }));
 * assert.equal(warmUpAnswers(at(50, 300)), 50); // 50 arrivals in the first second
 * assert.equal(warmUpAnswers(at(500, 3000)), 500);
 * assert.equal(warmUpAnswers(at(5000, 30000)), 1500); // capped
 * assert.equal(warmUpAnswers(at(5, 30)), 50); // at least WARM_UP_MIN
 * ```
 */
export function warmUpAnswers(entries: readonly Pick<ScheduledRequest, "scheduled_ms">[]): number {
  return Math.max(WARM_UP_MIN, arrivalsInFirst(entries, 1000, WARM_UP_MAX));
}

/** The arrivals of a schedule (in time order) within `windowMs` of its first one, counted up to `max`. */
function arrivalsInFirst(entries: readonly Pick<ScheduledRequest, "scheduled_ms">[], windowMs: number, max: number) {
  const end = (entries[0]?.scheduled_ms ?? 0) + windowMs;
  let n = 0;
  while (n < entries.length && n < max && entries[n]!.scheduled_ms < end) n++;
  return n;
}

/** An open loop's connections opened before ms 0 are enough for the arrivals of this first stretch of its schedule (ms). */
export const PRECONNECT_WINDOW_MS = 25;
/** The most connections an open loop opens to a route before ms 0 unless told a number. */
export const PRECONNECT_MAX = 256;

/**
 * How many keep-alive connections to open to each route before ms 0 when the caller gave no number: `floor` (the
 * `preconnect` setting's default), or, when more, as many as the schedule has arrivals in its first
 * {@linkcode PRECONNECT_WINDOW_MS} ms, up to {@linkcode PRECONNECT_MAX}. In its first tens of milliseconds the runner's
 * request path is still being compiled and its heap grown, so the first arrivals of a fast schedule overlap; each one
 * that finds no idle connection opens one (~0.1 ms of the main thread each). At 5,000 req/s against nginx, four runs
 * each: with 8 the first half-second's p99 send lag was 647.9, 8.3, 11.7 and 8.7 ms, with 125 5.3, 10.9, 5.3 and 13.2
 * (bench/README.md, "Issue 33, fourth pass"). A slow schedule keeps the floor.
 *
 * @example A fast schedule opens as many as its first 25 ms of arrivals
 * ```ts
 * import { preconnectCount } from "./warm_up.ts";
 * import assert from "node:assert/strict";
 * const at = (rate: number, n: number) => Array.from({ length: n }, (_, i) => ({ scheduled_ms: 100 + (i * 1000) / rate }));
 * assert.equal(preconnectCount(at(50, 300), 8), 8);
 * assert.equal(preconnectCount(at(5000, 30000), 8), 125);
 * assert.equal(preconnectCount(at(20000, 120000), 8), 256); // capped
 * assert.equal(preconnectCount([], 8), 8);
 * ```
 */
export function preconnectCount(entries: readonly Pick<ScheduledRequest, "scheduled_ms">[], floor: number): number {
  return Math.max(floor, arrivalsInFirst(entries, PRECONNECT_WINDOW_MS, PRECONNECT_MAX));
}

/**
 * Runs the per-response code (SSE decoding, chunk reading, checks, hashing)
 * on synthetic answers built from the cases' reference outputs, before the
 * clock starts, so that the first real arrivals do not pay for lazy
 * compilation: without it the first quarter-second of a 3,000 req/s run had
 * a p99 send lag of ~70 ms. Touches no target. An open loop gives
 * {@linkcode warmUpAnswers} of its schedule; a closed loop the most.
 */
export function warmUp(cases: readonly WorkloadCase[], iterations = WARM_UP_MAX): void {
  if (!cases.length) return;
  const streams = cases.map((c) => enc.encode(syntheticStream(c.reference_output)));
  for (let i = 0; i < iterations; i++) {
    const k = i % cases.length;
    const c = cases[k]!;
    if (i < cases.length) {
      chatBody(c, c.messages as WireMessage[], { model: "warm-up", stream: true, maxTokens: c.max_output_tokens });
    }
    const state = new ResponseState();
    const sse = new SseDecoder();
    for (const ev of sse.push(streams[k]!)) state.feedEvent(ev, i);
    sse.end();
    evaluateChecks({
      case: c,
      text: state.text,
      finish_reason: state.finishReason,
      tool_calls: [],
      max_tokens: c.max_output_tokens,
      output_tokens: c.expected_output_tokens,
    });
    createHash("sha256").update(state.text).digest("hex");
  }
}

/** An OpenAI-style stream answering `text` in word-sized chunks. */
function syntheticStream(text: string): string {
  const head = `"id":"warm","object":"chat.completion.chunk","created":0,"model":"warm-up"`;
  const words = text.match(/\S+\s*/g) ?? [text];
  let out = "";
  for (const w of words) {
    out += `data: {${head},"choices":[{"index":0,"delta":{"content":${JSON.stringify(w)}},"finish_reason":null}]}\n\n`;
  }
  out += `data: {${head},"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n`;
  out +=
    `data: {${head},"choices":[],"usage":{"prompt_tokens":1,"completion_tokens":${words.length}}}\n\ndata: [DONE]\n\n`;
  return out;
}
