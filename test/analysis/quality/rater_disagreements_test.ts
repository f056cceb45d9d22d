/**
 * The disagreement record read from a quality table (`raterDisagreements`) and the raters' agreement per class
 * (`raterAgreementByClass`): a hand-built table, then the committed quality sample against the review's own record
 * (written by `review import` from the ratings files) and a kappa computed by a plain loop.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { raterAgreementByClass } from "../../../analysis/quality/rater_agreement.ts";
import { formatRaterDisagreements, raterDisagreements } from "../../../analysis/quality/rater_disagreements.ts";
import { loadRunQuality } from "../../../analysis/quality/verdicts.ts";
import { loadRun } from "../../../analysis/run/load_run.ts";
import type { QualityRow } from "../../../schema/quality.ts";
import type { Rubric } from "../../../schema/rubric.ts";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const SHA = "a".repeat(64);

const v = (request_id: string, source: string, scores: { ok: number; style: number }): QualityRow => ({
  run_id: "r",
  request_id,
  source,
  rubric_id: "x",
  rubric_sha256: SHA,
  scores: JSON.stringify(scores),
  pass: scores.ok === 1 && scores.style >= 3,
  rationale: source === "human:bob" ? "bob's note" : null,
  time_spent_ms: null,
  judged_epoch_ms: 0,
  input_tokens: null,
  output_tokens: null,
  calls: null,
});

Deno.test("raterDisagreements() lists every item whose raters differ, in the rubric's criterion order, with its standing", () => {
  // The rubric lists style before ok: differences are named in that order, after "pass".
  const rubric = { criteria: [{ id: "style" }, { id: "ok" }] } as unknown as Rubric;
  const rows = [
    // a: verdicts differ (ann passes, bob fails on ok), adjudicated by cy to fail.
    v("a", "human:ann", { ok: 1, style: 4 }),
    v("a", "human:bob", { ok: 0, style: 4 }),
    v("a", "adjudicated:cy", { ok: 0, style: 4 }),
    // b: verdicts differ on both criteria, nobody adjudicated: unresolved.
    v("b", "human:ann", { ok: 1, style: 3 }),
    v("b", "human:bob", { ok: 0, style: 1 }),
    // c: one criterion apart, both pass: the verdicts agree.
    v("c", "human:ann", { ok: 1, style: 3 }),
    v("c", "human:bob", { ok: 1, style: 5 }),
    // d: identical; e: one rater only; f: a judge only. None listed.
    v("d", "human:ann", { ok: 1, style: 3 }),
    v("d", "human:bob", { ok: 1, style: 3 }),
    v("e", "human:ann", { ok: 0, style: 3 }),
    v("f", "judge:m", { ok: 0, style: 3 }),
  ];
  const class_of = new Map([["a", "qa"], ["b", "qa"], ["c", "sum"], ["d", "qa"], ["e", "qa"], ["f", "qa"]]);
  const d = raterDisagreements({ rows, class_of, rubrics: new Map([[SHA, rubric]]) });
  // Compared: a, b, c, d (two raters each); differ on the verdict: a, b; adjudicated: a.
  assert.deepEqual([d.compared, d.differ_on_pass, d.adjudicated, d.unresolved], [4, 2, 1, 1]);
  assert.deepEqual(d.items.map((i) => [i.class, i.request_id, i.differs_on, i.consensus.status, i.consensus.pass]), [
    ["qa", "a", ["pass", "ok"], "adjudicated", false],
    ["qa", "b", ["pass", "style", "ok"], "disagreed", null],
    ["sum", "c", ["style"], "agreed", true],
  ]);
  assert.deepEqual(d.items[0]!.ratings, [
    { rater: "ann", pass: true, scores: { ok: 1, style: 4 }, rationale: null },
    { rater: "bob", pass: false, scores: { ok: 0, style: 4 }, rationale: "bob's note" },
  ]);
  const text = formatRaterDisagreements(d);
  assert.match(
    text,
    /^disagreement record: 3 of 4 items rated by two or more raters differ \(2 on the verdict: 1 adjudicated, 1 unresolved/,
  );
  assert.match(
    text,
    /qa\s+b\s+pass, style, ok\s+ann pass \{"ok":1,"style":3\}; bob fail \{"ok":0,"style":1\}\s+UNRESOLVED/,
  );
  assert.match(text, /adjudicated by cy: fail/);
  // Without the rubric, the scores' own key order.
  assert.deepEqual(raterDisagreements({ rows, class_of }).items[1]!.differs_on, ["pass", "ok", "style"]);
});

Deno.test("the quality sample: the table's disagreement record is the review's, and the agreement a plain loop's kappa", async (t) => {
  const run = await loadRun(join(ROOT, "data/runs/quality"));
  const quality = (await loadRunQuality(run))!;
  await t.step("raterDisagreements() finds the items `review import` recorded, differing on the same things", () => {
    const d = raterDisagreements({ ...quality, rubrics: quality.table.rubrics });
    const record = JSON.parse(Deno.readTextFileSync(join(ROOT, "data/runs/quality/review/packet.disagreements.json")));
    const fromReview = (record.items as { request_id: string; differs_on: string[] }[])
      .map((i) => [i.request_id, i.differs_on]).sort();
    assert.deepEqual(d.items.map((i) => [i.request_id, i.differs_on]).sort(), fromReview);
    assert.equal(d.compared, record.compared);
    assert.equal(d.differ_on_pass, record.differ_on_pass);
    // The simulated adjudicator settled every listed item.
    assert.ok(d.items.every((i) => i.consensus.status === "adjudicated" && i.consensus.adjudicator === "cy"));
  });
  await t.step("raterAgreementByClass(): Cohen's kappa per class and over both, as a plain loop computes it", () => {
    const a = raterAgreementByClass(quality, { resamples: 50 });
    assert.deepEqual(a.map((x) => x.class), ["long_summary", "rag_answer", null]);
    const kappa = (classes: string[]) => {
      const byItem = new Map<string, Map<string, boolean>>();
      for (const r of quality.rows) {
        if (!r.source.startsWith("human:") || !classes.includes(quality.class_of.get(r.request_id)!)) continue;
        byItem.set(r.request_id, (byItem.get(r.request_id) ?? new Map()).set(r.source, r.pass));
      }
      const pairs = [...byItem.values()].filter((m) => m.size === 2).map((m) => [...m.values()]);
      const n = pairs.length;
      const agree = pairs.filter(([x, y]) => x === y).length / n;
      const [pa, pb] = [0, 1].map((k) => pairs.filter((p) => p[k]).length / n);
      const chance = pa! * pb! + (1 - pa!) * (1 - pb!);
      return { n, kappa: (agree - chance) / (1 - chance) };
    };
    for (const x of a) {
      const k = kappa(x.class === null ? ["long_summary", "rag_answer"] : [x.class]);
      assert.equal(x.method, "cohen_kappa");
      assert.equal(x.items, k.n);
      assert.ok(Math.abs(x.value! - k.kappa) < 1e-12, `${x.class}: ${x.value} vs ${k.kappa}`);
    }
  });
});
