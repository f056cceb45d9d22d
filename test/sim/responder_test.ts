import assert from "node:assert/strict";
import type { SimProfileInput, Workload, WorkloadCase } from "../../schema/mod.ts";
import { loadWorkload } from "../../schema/workload_file.ts";
import { answerPasses } from "../../sim/answer_check.ts";
import type { SimMessage } from "../../sim/chat_request.ts";
import { createPrng } from "../../sim/prng.ts";
import { type Answer, promptSha256, Responder } from "../../sim/responder.ts";
import { simTokenizer } from "../../sim/tokenizer.ts";
import { profile, testWorkload } from "./_fixtures.ts";

const asSim = (c: WorkloadCase): SimMessage[] => c.messages.map((m) => ({ ...m, toolCallText: "" }));

function responder(behaviour: SimProfileInput["behaviour"], w: Workload = testWorkload()): Responder {
  return new Responder(w, profile({ behaviour }).behaviour, simTokenizer());
}

function sample(r: Responder, c: WorkloadCase, n: number, degraded = false, seed = 3): Answer[] {
  const u = createPrng(seed);
  return Array.from(
    { length: n },
    () =>
      r.respond(asSim(c), { accuracy: u(), validity: u(), variant: u() }, {
        maxTokens: 1000,
        degraded,
        prefixCaching: true,
      }),
  );
}

const text = (a: Answer) => a.output.pieces.join("");
/** |observed − p·n| within 4 binomial standard deviations. */
function assertRate(hits: number, n: number, p: number, what: string) {
  const sd = Math.sqrt(n * p * (1 - p));
  assert.ok(Math.abs(hits - n * p) <= 4 * sd, `${what}: ${hits}/${n}, expected ${p * n} ± ${4 * sd}`);
}

Deno.test("answers are drawn at the configured rates", async (t) => {
  const w = testWorkload();
  const c = (id: string) => w.cases.find((x) => x.case_id === id)!;
  const n = 2000;

  await t.step("accuracy: right answers pass the check, wrong ones do not", () => {
    const got = sample(responder({ default: { accuracy: 0.7 } }), c("prose-1"), n);
    const right = got.filter((a) => a.verdict === "correct");
    assertRate(right.length, n, 0.7, "accuracy");
    for (const a of got) assert.equal(answerPasses(c("prose-1").quality_check, text(a)), a.verdict === "correct");
  });

  await t.step("a class override replaces the default rate", () => {
    const got = sample(
      responder({ default: { accuracy: 0.95 }, classes: { extract_json: { accuracy: 0.5 } } }),
      c("json-1"),
      n,
    );
    assertRate(got.filter((a) => a.verdict === "correct").length, n, 0.5, "extract_json accuracy");
  });

  await t.step("json_validity: broken answers do not parse, the rest do", () => {
    const got = sample(responder({ default: { accuracy: 1, json_validity: 0.8 } }), c("json-1"), n);
    const broken = got.filter((a) => a.brokenJson);
    assertRate(broken.length, n, 0.2, "broken JSON");
    for (const a of got) {
      const parses = (() => {
        try {
          JSON.parse(text(a));
          return true;
        } catch {
          return false;
        }
      })();
      assert.equal(parses, !a.brokenJson, text(a));
    }
  });

  await t.step("refusal_rate: refusals are the reference, the rest leak the canary", () => {
    const s = c("safety-1");
    const got = sample(responder({ default: { refusal_rate: 0.9 } }), s, n);
    const leaks = got.filter((a) => a.verdict === "leak");
    assertRate(got.filter((a) => a.verdict === "refusal").length, n, 0.9, "refusals");
    for (const a of leaks) assert.ok(text(a).includes(s.canary!));
    for (const a of got.filter((a) => a.verdict === "refusal")) assert.ok(text(a).startsWith(s.reference_output));
  });

  await t.step("tool_accuracy: a wrong call uses a forbidden tool or a forbidden argument", () => {
    const tc = c("tool-1");
    const got = sample(responder({ default: { tool_accuracy: 0.75 } }), tc, n);
    assertRate(got.filter((a) => a.verdict === "tool_ok").length, n, 0.75, "tool accuracy");
    const kinds = new Set<string>();
    for (const a of got) {
      assert.equal(a.finishReason, "tool_calls");
      assert.ok(a.output.kind === "tool_call");
      const args = JSON.parse(a.output.arguments) as Record<string, unknown>;
      const perm = tc.permitted_tools.find((p) => p.name === (a.output.kind === "tool_call" ? a.output.name : ""));
      const allowed = perm !== undefined &&
        Object.entries(args).every(([k, v]) => perm.allowed_arguments[k]?.some((x) => x === v));
      assert.equal(allowed, a.verdict === "tool_ok");
      if (!allowed) kinds.add(perm ? "argument" : "tool");
    }
    assert.deepEqual([...kinds].sort(), ["argument", "tool"]);
  });

  await t.step("degraded mode multiplies accuracy by the factor", () => {
    const r = responder({ default: { accuracy: 0.9 }, degraded: { enabled: true, accuracy_factor: 0.5 } });
    assertRate(sample(r, c("prose-1"), n, true).filter((a) => a.verdict === "correct").length, n, 0.45, "degraded");
    assertRate(sample(r, c("prose-1"), n, false).filter((a) => a.verdict === "correct").length, n, 0.9, "normal");
  });
});

Deno.test("the case is found by its initial messages and the round by the tool results", () => {
  const w = testWorkload();
  const tc = w.cases.find((x) => x.case_id === "tool-1")!;
  assert.equal(promptSha256(tc.messages), tc.prompt_sha256);
  const r = responder({ default: { tool_accuracy: 1, accuracy: 1 } });
  const draws = { accuracy: 0.5, validity: 0.5, variant: 0.5 };
  const opts = { maxTokens: 100, degraded: false, prefixCaching: true };
  const round1: SimMessage[] = [
    ...asSim(tc),
    { role: "assistant", content: "", toolCallText: 'get_order{"order_id":42}' },
    { role: "tool", content: '{"status":"paid"}', toolCallText: "" },
  ];
  const a = r.respond(round1, draws, opts);
  assert.equal(a.caseId, "tool-1");
  assert.equal(a.round, 1);
  assert.ok(a.output.kind === "tool_call" && a.output.name === "refund");
  assert.equal(a.cachedTokens, tc.input_tokens + simTokenizer().count('get_order{"order_id":42}'));
  assert.equal(a.promptTokens, a.cachedTokens + simTokenizer().count('{"status":"paid"}'));
  const other = r.respond([{ role: "user", content: "hello there", toolCallText: "" }], draws, opts);
  assert.equal(other.verdict, "unknown_prompt");
  assert.equal(other.caseId, null);
});

Deno.test("on the design-v1 workload, right answers pass their checks and wrong ones fail", async () => {
  const loaded = await loadWorkload("data/workloads/design-v1");
  const r = new Responder(loaded.workload, profile().behaviour, simTokenizer());
  assert.equal(r.size, loaded.workload.cases.length);
  const opts = { maxTokens: 4096, degraded: false, prefixCaching: true };
  for (const c of loaded.workload.cases) {
    if (c.safety_case) {
      const refusal = r.respond(asSim(c), { accuracy: 0, validity: 0, variant: 0 }, opts);
      const leak = r.respond(asSim(c), { accuracy: 0.999, validity: 0, variant: 0 }, opts);
      assert.equal(answerPasses(c.quality_check, text(refusal)), true, `${c.case_id} refusal`);
      assert.ok(c.canary && text(leak).includes(c.canary) && !text(refusal).includes(c.canary), c.case_id);
      continue;
    }
    if (c.tool_calls_expected.length) continue;
    const right = r.respond(asSim(c), { accuracy: 0, validity: 0, variant: 0 }, opts);
    const wrong = r.respond(asSim(c), { accuracy: 0.999, validity: 0, variant: 0.3 }, opts);
    assert.equal(answerPasses(c.quality_check, text(right)), true, `${c.case_id}: ${text(right).slice(0, 80)}`);
    assert.equal(answerPasses(c.quality_check, text(wrong)), false, `${c.case_id}: ${text(wrong).slice(0, 80)}`);
    if (c.expected_output_schema === null) {
      assert.ok(right.output.pieces.length >= c.expected_output_tokens, `${c.case_id} padded`);
    } else {
      assert.equal(text(right), c.reference_output, `${c.case_id}: JSON exactly`);
    }
  }
});
