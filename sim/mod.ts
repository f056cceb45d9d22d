/**
 * The embedded simulator: an OpenAI-compatible Chat Completions server on
 * loopback with a real capacity model (continuous batching, one FIFO queue,
 * 429 shedding, cold start, an autoscaler), faults (500s, 503 and refused
 * connections) and its own per-second timeline. Answers come from the
 * workload's reference outputs, right or wrong at the profile's rates.
 *
 * @example Start the simulator in-process and ask it something
 * ```ts
 * import { startSim } from "./mod.ts";
 * import { SimProfile } from "../schema/mod.ts";
 * import assert from "node:assert/strict";
 * const sim = await startSim({ profile: SimProfile.parse({ name: "doc" }), quiet: true });
 * const res = await fetch(`${sim.url}/v1/chat/completions`, {
 *   method: "POST",
 *   body: JSON.stringify({ model: "sim-llm", messages: [{ role: "user", content: "Hi" }], max_tokens: 3 }),
 * });
 * assert.equal((await res.json()).usage.completion_tokens, 3);
 * await sim.stop();
 * ```
 * @module
 */
export * from "./server.ts";
export * from "./engine.ts";
export * from "./responder.ts";
