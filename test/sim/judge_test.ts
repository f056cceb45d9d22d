import assert from "node:assert/strict";
import { join } from "node:path";
import { getEncoding } from "js-tiktoken";
import { judgeBody } from "../../runner/judge/judge_item.ts";
import { rubricVerdict } from "../../schema/rubric.ts";
import { SimProfile } from "../../schema/sim_profile.ts";
import type { WorkloadCase } from "../../schema/workload.ts";
import { loadWorkload } from "../../schema/workload_file.ts";
import { answerPasses } from "../../sim/answer_check.ts";
import { startSim } from "../../sim/mod.ts";
import { DESIGN_V1, judgeSim, ROOT } from "../support/judge_fixture.ts";

const enc = getEncoding("o200k_base");

/** P(X ≤ k) for X ~ Binomial(n, p), summed in log space. */
function binomialCdf(k: number, n: number, p: number): number {
  let logC = 0, sum = 0;
  for (let i = 0; i <= k; i++) {
    if (i > 0) logC += Math.log(n - i + 1) - Math.log(i);
    sum += Math.exp(logC + i * Math.log(p) + (n - i) * Math.log(1 - p));
  }
  return sum;
}

/**
 * The counts [lo, hi] a Binomial(n, p) count falls in with probability at least 99.9 %: lo is the largest with
 * P(X < lo) ≤ 0.0005, hi the smallest with P(X > hi) ≤ 0.0005.
 */
function binomialBounds(n: number, p: number): [number, number] {
  let lo = 0;
  while (lo < n && binomialCdf(lo, n, p) <= 0.0005) lo++;
  let hi = n;
  while (hi > 0 && 1 - binomialCdf(hi - 1, n, p) <= 0.0005) hi--;
  return [lo, hi];
}

Deno.test("binomialBounds: Binomial(20, 0.5) by hand", () => {
  // P(X ≤ 2) = (1 + 20 + 190) / 2^20 = 211 / 1048576 = 0.000201 ≤ 0.0005; P(X ≤ 3) = (211 + 1140) / 2^20 = 0.00129:
  // lo = 3. By symmetry P(X ≥ 18) = 0.000201 and P(X ≥ 17) = 0.00129: hi = 17.
  assert.ok(Math.abs(binomialCdf(2, 20, 0.5) - 211 / 1048576) < 1e-15);
  assert.deepEqual(binomialBounds(20, 0.5), [3, 17]);
});

/** A judge item built for the test: the truth is known by construction. */
interface Built {
  c: WorkloadCase;
  answer: string;
  truth: boolean;
}

/**
 * For every case of typical input size with a rubric: `k` right answers (its reference, numbered) and `k` wrong ones
 * (siblings' references). The long cases are left out only to keep the test fast (each prompt is tokenized).
 */
function items(cases: readonly WorkloadCase[], rubricCases: ReadonlySet<string>, k: number): Built[] {
  const out: Built[] = [];
  for (const c of cases.filter((c) => rubricCases.has(c.case_id) && c.input_size === "typical")) {
    const wrong = cases.filter((s) =>
      s.class === c.class && s !== c && !answerPasses(c.quality_check, s.reference_output)
    );
    assert.ok(wrong.length > 0, c.case_id);
    for (let j = 0; j < k; j++) {
      out.push({ c, answer: `${c.reference_output}\n(${j + 1})`, truth: true });
      out.push({ c, answer: `${wrong[j % wrong.length]!.reference_output}\n(${j + 1})`, truth: false });
    }
  }
  return out;
}

/** Sends every item to the judge (16 at a time); each reply's content, usage and x-sim-verdict. */
async function judgeAll(
  url: string,
  built: Built[],
  rubricOf: (c: WorkloadCase) => Parameters<typeof judgeBody>[0]["rubric"],
) {
  const out: {
    content: string;
    usage: { prompt_tokens: number; completion_tokens: number };
    header: string;
    body: string;
  }[] = [];
  let next = 0;
  await Promise.all(Array.from({ length: 16 }, async () => {
    while (next < built.length) {
      const i = next++;
      const b = built[i]!;
      const body = judgeBody(
        {
          request_id: `q${i}`,
          case_id: b.c.case_id,
          rubric: rubricOf(b.c),
          conversation: b.c.messages,
          answer: b.answer,
        },
        "judge",
        512,
      );
      const res = await fetch(`${url}/v1/chat/completions`, { method: "POST", body });
      assert.equal(res.status, 200);
      const json = await res.json();
      out[i] = {
        content: json.choices[0].message.content,
        usage: json.usage,
        header: res.headers.get("x-sim-verdict")!,
        body,
      };
    }
  }));
  return out;
}

Deno.test("the simulator's judge errs at its profile's rates against the truth, within a binomial 99.9 % bound", async (t) => {
  const loaded = await loadWorkload(DESIGN_V1);
  const rubrics = loaded.rubrics!;
  const rubricOf = (c: WorkloadCase) => rubrics.byCaseId.get(c.case_id)!;
  const built = items(loaded.workload.cases, new Set(rubrics.byCaseId.keys()), 10);
  const sensitivity = 0.8, specificity = 0.7;
  const sim = await judgeSim({ sensitivity, specificity, seed: 11 });
  try {
    const replies = await judgeAll(sim.url, built, rubricOf);
    const verdicts = replies.map((r, i) => {
      const reply = JSON.parse(r.content);
      const v = rubricVerdict(rubricOf(built[i]!.c), reply.scores);
      assert.deepEqual(v.problems, [], r.content);
      assert.equal(r.header, v.pass ? "judge_pass" : "judge_fail", "the scores agree with the verdict");
      assert.equal(typeof reply.rationale, "string");
      return v.pass!;
    });

    await t.step("the truth is the case's own check", () => {
      for (const b of built) assert.equal(answerPasses(b.c.quality_check, b.answer), b.truth);
    });

    await t.step("sensitivity and specificity within the 99.9 % bound", () => {
      const pos = built.flatMap((b, i) => b.truth ? [verdicts[i]!] : []);
      const neg = built.flatMap((b, i) => b.truth ? [] : [verdicts[i]!]);
      assert.ok(pos.length >= 100 && neg.length >= 100, `${pos.length} + ${neg.length} items`);
      const tp = pos.filter((v) => v).length, tn = neg.filter((v) => !v).length;
      const [sLo, sHi] = binomialBounds(pos.length, sensitivity);
      const [pLo, pHi] = binomialBounds(neg.length, specificity);
      assert.ok(tp >= sLo && tp <= sHi, `${tp} of ${pos.length} judged pass, bound [${sLo}, ${sHi}]`);
      assert.ok(tn >= pLo && tn <= pHi, `${tn} of ${neg.length} judged fail, bound [${pLo}, ${pHi}]`);
      // Not a judge that always says one thing.
      assert.ok(tp < pos.length && tn < neg.length);
    });

    await t.step("usage: every message of the request and the reply, by an independent o200k_base tokenizer", () => {
      // Every fifth reply (4 of each case's 20, both truths): the test's own tokenizer is the slow part.
      replies.filter((_, i) => i % 5 === 0).forEach((r) => {
        const messages = JSON.parse(r.body).messages as { content: string }[];
        assert.equal(r.usage.prompt_tokens, messages.reduce((s, m) => s + enc.encode(m.content).length, 0));
        assert.equal(r.usage.completion_tokens, enc.encode(r.content).length);
      });
    });

    await t.step("a rerun gets the same verdicts; another seed some others", async () => {
      const again = await judgeAll(sim.url, built.slice(0, 24), rubricOf);
      assert.deepEqual(again.map((r) => r.content), replies.slice(0, 24).map((r) => r.content));
      const other = await judgeSim({ sensitivity, specificity, seed: 12 });
      try {
        const theirs = await judgeAll(other.url, built.slice(0, 60), rubricOf);
        const differ = theirs.filter((r, i) => r.header !== replies[i]!.header).length;
        assert.ok(differ > 0, "another seed draws other verdicts");
      } finally {
        await other.stop();
      }
    });
  } finally {
    await sim.stop();
  }
});

Deno.test("only a judge's request naming its case's rubric is answered as a judge, and only with a judge profile", async () => {
  const loaded = await loadWorkload(DESIGN_V1);
  const rubrics = loaded.rubrics!;
  const c = loaded.workload.cases.find((c) => rubrics.byCaseId.has(c.case_id))!;
  const item = {
    request_id: "q",
    case_id: c.case_id,
    rubric: rubrics.byCaseId.get(c.case_id)!,
    conversation: c.messages,
    answer: c.reference_output,
  };
  const body = JSON.parse(judgeBody(item, "judge", 512));
  const post = async (url: string, b: unknown) => {
    const res = await fetch(`${url}/v1/chat/completions`, { method: "POST", body: JSON.stringify(b) });
    await res.body?.cancel();
    return res.headers.get("x-sim-verdict");
  };
  const sim = await judgeSim({ sensitivity: 1, specificity: 1, seed: 1 });
  const plain = await startSim({
    port: 0,
    profile: SimProfile.parse(JSON.parse(Deno.readTextFileSync(join(ROOT, "data/sim/fast.json")))),
    workload: loaded,
    quiet: true,
  });
  try {
    assert.equal(await post(sim.url, body), "judge_pass");
    const noHash = { ...body, messages: [{ role: "system", content: "Grade it." }, body.messages[1]] };
    assert.equal(await post(sim.url, noHash), "unknown_prompt");
    const otherCase = loaded.workload.cases.find((o) => !rubrics.byCaseId.has(o.case_id))!;
    const doc = { conversation: otherCase.messages, answer: "x" };
    assert.equal(
      await post(sim.url, { ...body, messages: [body.messages[0], { role: "user", content: JSON.stringify(doc) }] }),
      "unknown_prompt",
    );
    assert.equal(await post(plain.url, body), "unknown_prompt");
  } finally {
    await sim.stop();
    await plain.stop();
  }
});

Deno.test("data/sim/judge.json is a judge of sensitivity 0.9 and specificity 0.85", async () => {
  const p = SimProfile.parse(JSON.parse(await Deno.readTextFile(join(ROOT, "data/sim/judge.json"))));
  assert.deepEqual(p.judge, { sensitivity: 0.9, specificity: 0.85, seed: 7 });
  assert.throws(() => SimProfile.parse({ name: "x", judge: { sensitivity: 1.2, specificity: 0.5 } }), /sensitivity/);
});
