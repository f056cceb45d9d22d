import type { SimDegradedMode } from "../schema/mod.ts";
import type { EngineSnapshot } from "./engine.ts";
import type { Answer } from "./responder.ts";

/**
 * The announced degraded mode a request arriving now is served in, or null
 * (normal service): the profile's mode while its load signal is strictly
 * above the threshold.
 *
 * @example Degraded above 4 queued requests, not at 4
 * ```ts
 * import { degradedModeAt } from "./degraded_mode.ts";
 * import assert from "node:assert/strict";
 * const mode = { name: "degraded-short", signal: "queue_len" as const, threshold: 4, max_output_tokens: 8 };
 * assert.equal(degradedModeAt(mode, { queue_len: 4, running: 0 }), null);
 * assert.equal(degradedModeAt(mode, { queue_len: 5, running: 0 }), "degraded-short");
 * ```
 */
export function degradedModeAt(
  mode: SimDegradedMode | undefined,
  load: Pick<EngineSnapshot, "queue_len" | "running">,
): string | null {
  if (!mode) return null;
  return load[mode.signal] > mode.threshold ? mode.name : null;
}

/**
 * The degraded form of an answer: a text answer cut to its first
 * `maxTokens` tokens, its finish reason unchanged (the service chose a
 * shorter answer; it did not run out of room). Tool calls are kept whole: a
 * cut call would be another call.
 *
 * @example
 * ```ts
 * import { shortened } from "./degraded_mode.ts";
 * import assert from "node:assert/strict";
 * const a = { output: { kind: "text" as const, pieces: ["a", "b", "c"] }, finishReason: "stop" as const };
 * assert.deepEqual(shortened(a as never, 2).output, { kind: "text", pieces: ["a", "b"] });
 * ```
 */
export function shortened(answer: Answer, maxTokens: number): Answer {
  const out = answer.output;
  if (out.kind !== "text" || out.pieces.length <= maxTokens) return answer;
  return { ...answer, output: { kind: "text", pieces: out.pieces.slice(0, maxTokens) } };
}
