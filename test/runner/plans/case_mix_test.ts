import assert from "node:assert/strict";
import { caseMix, selectsCase } from "../../../runner/plans/case_mix.ts";
import { InputError } from "../../../schema/errors.ts";
import { CaseMix, PlanSpec, type Workload, type WorkloadCase } from "../../../schema/mod.ts";
import { tinyCase } from "../../../testing/tiny_workload.ts";

/** One case: its class, input size, input tokens and tags. */
function c(id: string, cls: string, size: "typical" | "long", tokens: number, tags?: string[]): WorkloadCase {
  return tinyCase({ case_id: id, class: cls, input_size: size, input_tokens: tokens, ...(tags ? { tags } : {}) });
}

/** chat: two short cases and one long; summary: one long and one typical; no tags on s-typ. */
const CASES = [
  c("chat-short-1", "chat", "typical", 300, ["short-chat"]),
  c("chat-short-2", "chat", "typical", 420, ["short-chat", "greeting"]),
  c("chat-long", "chat", "long", 6000, ["long-context"]),
  c("s-long", "summary", "long", 9000, ["long-context"]),
  c("s-typ", "summary", "typical", 800),
];
const W: Workload = {
  workload: "mixfix",
  version: "1",
  kind: "design",
  description: "fixture",
  does_not_represent: [],
  tokenizer: "o200k_base",
  cases: CASES,
};
const mix = (m: Record<string, unknown>) => CaseMix.parse(m);
/** The case ids drawn over arrivals 0..n−1, as a set. */
const drawn = (m: Record<string, unknown>, n = 400) => {
  const assign = caseMix(W, mix(m), 3, "p.json");
  return [...new Set(Array.from({ length: n }, (_, i) => assign(i).case_id))].sort();
};

Deno.test("selectsCase() keeps a case only when every rule given holds", () => {
  const sel = (m: Record<string, unknown>) => CASES.filter((x) => selectsCase(mix(m), x)).map((x) => x.case_id);
  assert.deepEqual(sel({}), CASES.map((x) => x.case_id), "no rule: every case");
  assert.deepEqual(sel({ tags: ["short-chat"] }), ["chat-short-1", "chat-short-2"]);
  assert.deepEqual(sel({ tags: ["short-chat", "greeting"] }), ["chat-short-2"], "every tag listed, not any");
  assert.deepEqual(sel({ exclude_tags: ["long-context"] }), ["chat-short-1", "chat-short-2", "s-typ"]);
  assert.deepEqual(sel({ input_size: ["long"] }), ["chat-long", "s-long"]);
  // Bounds are inclusive: 420 ≤ 420 kept, 800 > 420 dropped; 300 ≥ 300 kept.
  assert.deepEqual(sel({ min_input_tokens: 300, max_input_tokens: 420 }), ["chat-short-1", "chat-short-2"]);
  assert.deepEqual(sel({ input_size: ["typical"], min_input_tokens: 421 }), ["s-typ"]);
});

Deno.test("the mix draws only selected cases, classes weighted among those left", () => {
  // No class weights: every class with a selected case, equally: chat (2 short) and summary (s-typ).
  assert.deepEqual(drawn({ exclude_tags: ["long-context"] }), ["chat-short-1", "chat-short-2", "s-typ"]);
  // Long context only, summary alone by weight.
  assert.deepEqual(drawn({ input_size: ["long"], class_weights: { summary: 1 } }), ["s-long"]);
  // Draws for a case depend on (seed, i) only: the same selection gives the same cases in the same order.
  const a = caseMix(W, mix({ tags: ["short-chat"] }), 3, "p.json");
  const b = caseMix(W, mix({ tags: ["short-chat"] }), 3, "p.json");
  assert.deepEqual([5, 9, 200].map((i) => a(i).case_id), [5, 9, 200].map((i) => b(i).case_id));
});

Deno.test("a selection that leaves a weighted class or the whole mix without a case is an input error", () => {
  const problems = (m: Record<string, unknown>) => {
    try {
      caseMix(W, mix(m), 3, "p.json");
    } catch (e) {
      assert.ok(e instanceof InputError);
      return e.problems;
    }
    return [];
  };
  assert.deepEqual(problems({ tags: ["short-chat"], class_weights: { chat: 1, summary: 1 } }), [
    'p.json: mix.class_weights.summary: no case of class "summary" has tags short-chat (classes with one: chat)',
  ]);
  assert.deepEqual(problems({ tags: ["nowhere"], max_input_tokens: 100 }), [
    "p.json: mix: no case of workload mixfix has tags nowhere, input_tokens ≤ 100",
  ]);
  assert.deepEqual(problems({ class_weights: { poetry: 1 } }), [
    'p.json: mix.class_weights.poetry: class "poetry" is not in workload mixfix (its classes: chat, summary)',
  ]);
});

Deno.test("a plan's mix refuses crossed token bounds and a tag both required and excluded", () => {
  const r = PlanSpec.safeParse({
    name: "p",
    arrivals: { process: "constant", rate_rps: 1, duration_s: 1 },
    mix: { min_input_tokens: 500, max_input_tokens: 400, tags: ["a"], exclude_tags: ["a"] },
  });
  assert.equal(r.success, false);
  const messages = r.error!.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
  assert.deepEqual(messages, [
    "mix.max_input_tokens: max_input_tokens 400 is below min_input_tokens 500: no case fits",
    'mix.exclude_tags: tag "a" is both required and excluded',
  ]);
});
