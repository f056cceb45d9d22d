import assert from "node:assert/strict";
import { ledger } from "../../../analysis/cost/ledger.ts";
import { formatLedger } from "../../../analysis/cost/format_ledger.ts";
import { loadRun } from "../../../analysis/run/load_run.ts";
import type { LoadedRun } from "../../../analysis/run/loaded_run.ts";
import { withQuality } from "../../../analysis/run/run_quality.ts";
import type { LedgerLine } from "../../../analysis/cost/price_lines.ts";
import type { OverheadSheet } from "../../../schema/prices.ts";
import { LEDGER_POLICY, overheadsA, sheetA, writeLedgerRun } from "./ledger_fixture.ts";
import { JUDGE_DETAILS, judgeRows, writeJudgePart, writeReviewParts } from "./ledger_quality_fixture.ts";

/*
 * The hand-worked run of ledger_test.ts (total 0.3489 USD with sheet A and overheads A, of which the expected-count
 * human review 0.18; 3 accepted of 6 offered) with the quality table of ledger_quality_fixture.ts, the judge model m
 * priced at 2 USD/Mtok input and 10 USD/Mtok output, the reviewer at 0.6 USD/h (overheads A's hourly).
 *
 * Judge (part judge-m.csv): totals 5000 in / 500 out, its 4 verdicts 4000 / 400, so 1000 / 100 on items left
 * unjudged: 250 / 25 per judged item. Window items a1, a2, a4 (w1 is outside it):
 *   own tokens: input 1000 + 1200 + 800 = 3000 → 0.003 Mtok × 2 = 0.006; output 100 + 120 + 80 = 300 → 0.003.
 *   unjudged share: input 3 × 250 = 750 → 0.0015; output 3 × 25 = 75 → 0.00075.
 *   judge = 0.006 + 0.003 + 0.0015 + 0.00075 = 0.01125 (3750 input, 375 output tokens charged).
 * Human review (recorded): window verdicts a1 ana 2 + a2 ana 3 + a1 bo 4 + a4 bo 1 = 10 min (human) and a1 lead 5 min
 *   (adjudicated); h1 bo records no time; w1 ana is outside the window. 10 / 60 h × 0.6 = 0.1; 5 / 60 × 0.6 = 0.05;
 *   human_review = 0.15, replacing the expected 0.18.
 * Total = 0.3489 − 0.18 + 0.15 + 0.01125 = 0.33015; per accepted task / 3 = 0.11005.
 * By class: qa (a1, a2): judge input 1250 + 1450 = 2700 → 0.0054, output 125 + 145 = 270 → 0.0027, 0.0081 in all;
 *   review a1 2 + 4 + 5 + a2 3 = 14 min → 0.14. other (a4): judge 1050 → 0.0021 + 105 → 0.00105 = 0.00315; review
 *   1 min → 0.01.
 */
const close = (actual: number | null | undefined, expected: number, what: string) =>
  assert.ok(actual != null && Math.abs(actual - expected) < 1e-12, `${what}: ${actual} ≠ ${expected}`);

const find = (lines: LedgerLine[], item: string, detail: RegExp) => {
  const hit = lines.filter((l) => l.item === item && detail.test(l.detail));
  assert.equal(hit.length, 1, `one ${item}/${detail} line, got ${hit.length}`);
  return hit[0]!;
};

const JUDGE_PRICE = { m: { input_per_mtok: 2, output_per_mtok: 10, source: "test judge quote" } };
const priced = (): OverheadSheet => overheadsA({ evaluation: { judge_models: JUDGE_PRICE } });

async function qualityRun(
  parts: "judge and review" | "judge" | "none" = "judge and review",
  details: Record<string, unknown> = JUDGE_DETAILS,
): Promise<LoadedRun> {
  const dir = writeLedgerRun();
  if (parts !== "none") await writeJudgePart(dir, details);
  if (parts === "judge and review") await writeReviewParts(dir);
  return await withQuality(await loadRun(dir, { onWarning: () => {} }));
}

const OWN = /^judge m: (input|output) tokens, calls of its verdicts$/;
const REST = /^judge m: (input|output) tokens, calls on items left unjudged/;

Deno.test("ledger() charges a judge's recorded tokens and the reviewers' recorded minutes", async (t) => {
  const run = await qualityRun();
  const r = ledger(run, LEDGER_POLICY, sheetA(), { overheads: priced() });

  await t.step("withQuality() reads the table and the ledger takes it from the run", () => {
    assert.equal(run.quality!.rows.length, 4 + 6 + 1);
    assert.deepEqual(run.quality!.manifest.parts.map((p) => p.file), ["judge-m.csv", "review.csv", "adjudication.csv"]);
  });

  await t.step("judge: every call's tokens × the model's price, unjudged items' tokens shared per judged item", () => {
    const l = r.lines;
    const own = l.filter((x) => x.item === "judge" && OWN.test(x.detail));
    assert.deepEqual(own.map((x) => [x.unit, x.unit_price]), [["Mtok", 2], ["Mtok", 10]]);
    close(own[0]!.quantity, 0.003, "own input Mtok");
    close(own[0]!.amount, 0.006, "own input");
    close(own[1]!.amount, 0.003, "own output");
    const rest = l.filter((x) => x.item === "judge" && REST.test(x.detail));
    close(rest[0]!.quantity, 0.00075, "unjudged input Mtok");
    close(rest[0]!.amount, 0.0015, "unjudged input");
    close(rest[1]!.amount, 0.00075, "unjudged output");
    close(r.overall.cost.judge, 0.01125, "judge");
    assert.match(own[0]!.source, /^overheads-a: test judge quote \(as of 2026-01-03\)$/);
    assert.deepEqual(r.pricing.evaluation.judge, [{
      part: "judge-m.csv",
      models: ["m"],
      basis: "part totals",
      items: 4,
      items_in_window: 3,
      input_tokens: 5000,
      output_tokens: 500,
      unjudged_input_tokens: 1000,
      unjudged_output_tokens: 100,
      charged_input_tokens: 3750,
      charged_output_tokens: 375,
      not_priced: [],
    }]);
  });

  await t.step("human review: recorded minutes × hourly, the expected count replaced and the basis said", () => {
    const l = r.lines;
    assert.equal(l.filter((x) => /^(reviews|corrections):/.test(x.detail)).length, 0, "no expected-count line");
    const human = find(l, "human_review", /^recorded time of human:\* verdicts/);
    assert.deepEqual([human.unit, human.unit_price], ["reviewer hour", 0.6]);
    close(human.quantity, 10 / 60, "human hours");
    close(human.amount, 0.1, "human");
    close(find(l, "human_review", /^recorded time of adjudicated:\* verdicts/).amount, 0.05, "adjudicated");
    close(r.overall.cost.human_review, 0.15, "human_review");
    assert.deepEqual(r.pricing.evaluation.human_review, {
      basis: "recorded",
      verdicts: 7,
      verdicts_in_window: 6,
      no_time: 1,
      minutes: 15,
      sources: ["adjudicated:lead", "human:ana", "human:bo"],
    });
    assert.ok(r.pricing.warnings.some((w) => /1 of the 6 human and adjudicated verdicts .* no time_spent_ms/.test(w)));
    assert.ok(r.pricing.rules.some((s) => /^human review: recorded minutes \(basis recorded\)/.test(s)));
  });

  await t.step("both in the numerator, the denominator unchanged; classes by the verdicts' requests", () => {
    const o = r.overall;
    assert.deepEqual([o.offered, o.accepted], [6, 3]);
    close(o.total, 0.33015, "total");
    close(o.cost_per_accepted_task, 0.11005, "cost per accepted task");
    close(r.lines.reduce((s, x) => s + x.amount, 0), o.total, "lines sum to the total");
    const qa = r.by_class.find((c) => c.class === "qa")!, other = r.by_class.find((c) => c.class === "other")!;
    close(qa.cost.judge, 0.0081, "qa judge");
    close(other.cost.judge, 0.00315, "other judge");
    close(qa.cost.human_review, 0.14, "qa review");
    close(other.cost.human_review, 0.01, "other review");
  });

  await t.step("the text ledger says the basis of each", () => {
    const text = formatLedger(r);
    assert.match(text, /human review: recorded minutes, 15 min of 6 verdicts on the window's requests/);
    assert.match(text, /judge m \(part judge-m\.csv, from the part totals\): 5000 input \+ 500 output tokens/);
  });
});

Deno.test("ledger() with a quality table: the same figures computed independently from the verdicts", async () => {
  const run = await qualityRun();
  const r = ledger(run, LEDGER_POLICY, sheetA(), { overheads: priced() });
  // Independent: from the fixture's rows and the run's requests, without the ledger's book.
  const window = new Set(["a1", "a2", "a3", "a4", "a5", "h1"]);
  const classOf = new Map(
    (run.requests.select("request_id", "class").toRecords() as { request_id: string; class: string }[])
      .map((x) => [x.request_id, x.class]),
  );
  const judged = judgeRows(run.manifest.run_id);
  const restIn = JUDGE_DETAILS.input_tokens - judged.reduce((s, x) => s + x.input_tokens!, 0);
  const restOut = JUDGE_DETAILS.output_tokens - judged.reduce((s, x) => s + x.output_tokens!, 0);
  const want = new Map<string, { judge: number; review: number }>();
  const at = (id: string) =>
    want.get(classOf.get(id)!) ?? want.set(classOf.get(id)!, { judge: 0, review: 0 }).get(classOf.get(id)!)!;
  for (const x of judged.filter((x) => window.has(x.request_id))) {
    at(x.request_id).judge += (x.input_tokens! + restIn / judged.length) * 2 / 1e6 +
      (x.output_tokens! + restOut / judged.length) * 10 / 1e6;
  }
  for (const x of run.quality!.rows) {
    if (/^(human|adjudicated):/.test(x.source) && window.has(x.request_id) && x.time_spent_ms !== null) {
      at(x.request_id).review += x.time_spent_ms / 3_600_000 * 0.6;
    }
  }
  for (const [cls, w] of want) {
    const row = r.by_class.find((c) => c.class === cls)!;
    close(row.cost.judge, w.judge, `${cls} judge`);
    close(row.cost.human_review, w.review, `${cls} review`);
  }
  const sum = (k: "judge" | "review") => [...want.values()].reduce((s, w) => s + w[k], 0);
  close(r.overall.cost.judge, sum("judge"), "judge");
  close(r.overall.cost.human_review, sum("review"), "review");
});

Deno.test("a judge model with no price is NOT PRICED: at 0 with a one-line warning, never a made-up price", async (t) => {
  const run = await qualityRun();
  await t.step("an overheads sheet without the model", () => {
    const r = ledger(run, LEDGER_POLICY, sheetA(), { overheads: overheadsA() });
    const judge = r.lines.filter((x) => x.item === "judge");
    assert.equal(judge.length, 4);
    assert.ok(judge.every((x) => x.unit_price === 0 && x.amount === 0));
    assert.ok(judge.every((x) => x.source.startsWith('NOT PRICED: no price for judge model "m"')));
    close(judge.reduce((s, x) => s + x.quantity, 0), (3750 + 375) / 1e6, "the tokens stay on their lines");
    assert.deepEqual(r.pricing.evaluation.judge[0]!.not_priced, ["m"]);
    const warn = r.pricing.warnings.filter((w) => /NOT PRICED/.test(w));
    assert.equal(warn.length, 1);
    assert.match(warn[0]!, /^judge m: NOT PRICED: 3750 input and 375 output tokens are listed at 0/);
    // 0.3489 − 0.18 + 0.15 (recorded review) + 0 (judge not priced) = 0.3189.
    close(r.overall.total, 0.3189, "total without the judge");
    const text = formatLedger(r).split("\n");
    assert.ok(
      text.some((s) =>
        /^\s*judge\s+-\s+judge m: input tokens, calls of its verdicts .*NOT PRICED\s+NOT PRICED/.test(s)
      ),
    );
  });
  await t.step("no overheads sheet: the judge NOT PRICED, the recorded hours at 0", () => {
    const r = ledger(run, LEDGER_POLICY, sheetA());
    assert.ok(r.lines.filter((x) => x.item === "judge").every((x) => /^NOT PRICED: no overheads sheet/.test(x.source)));
    const human = find(r.lines, "human_review", /^recorded time of human/);
    assert.deepEqual([human.amount, human.source], [0, "not priced: no overheads sheet given (--overheads)"]);
    close(human.quantity, 10 / 60, "hours listed");
    close(r.overall.total, 0.0129, "model bill only");
    assert.equal(r.pricing.evaluation.human_review.basis, "recorded");
  });
});

Deno.test("without human verdicts the expected-count review model is unchanged", async (t) => {
  const base = ledger(await qualityRun("none"), LEDGER_POLICY, sheetA(), { overheads: priced() });
  await t.step("no quality table: the ledger as before", () => {
    close(base.overall.total, 0.3489, "total");
    close(base.overall.cost.human_review, 0.18, "expected review");
    assert.equal(base.pricing.evaluation.human_review.basis, "expected");
    assert.deepEqual(base.pricing.evaluation.judge, []);
    assert.ok(base.pricing.rules.some((s) => /^human review: expected counts/.test(s)));
  });
  await t.step("judge verdicts only: the judge line added, review still expected", async () => {
    const r = ledger(await qualityRun("judge"), LEDGER_POLICY, sheetA(), { overheads: priced() });
    assert.equal(r.pricing.evaluation.human_review.basis, "expected");
    assert.deepEqual(r.lines.filter((x) => x.item !== "judge"), base.lines);
    close(r.overall.total, 0.3489 + 0.01125, "total");
  });
  await t.step("a quality table passed as null is not charged", async () => {
    const r = ledger(await qualityRun(), LEDGER_POLICY, sheetA(), { overheads: priced(), quality: null });
    assert.deepEqual(r.lines, base.lines);
  });
});

Deno.test("a judge part without token totals is charged by its verdicts' own tokens, basis stated", async () => {
  // Only the verdicts: window a1, a2, a4: 3000 input × 2 / 1e6 = 0.006 + 300 output × 10 / 1e6 = 0.003 = 0.009.
  const run = await qualityRun("judge", { model: "m" });
  const r = ledger(run, LEDGER_POLICY, sheetA(), { overheads: priced() });
  close(r.overall.cost.judge, 0.009, "judge");
  assert.equal(r.lines.filter((x) => x.item === "judge" && REST.test(x.detail)).length, 0);
  const j = r.pricing.evaluation.judge[0]!;
  assert.deepEqual([j.basis, j.input_tokens, j.output_tokens, j.unjudged_input_tokens], ["rows", 4000, 400, 0]);
});

Deno.test("a judge whose replies carried no usage: its totals charged as a lower bound, said in a warning", async () => {
  // The judge writes replies_without_usage when a reply had no usage: its totals leave those tokens out.
  const run = await qualityRun("judge", { ...JUDGE_DETAILS, replies_without_usage: 2 });
  const r = ledger(run, LEDGER_POLICY, sheetA(), { overheads: priced() });
  close(r.overall.cost.judge, 0.01125, "judge, the recorded totals");
  assert.ok(
    r.pricing.warnings.some((w) =>
      /^judge part judge-m\.csv: 2 replies carried no token counts: .*lower bound/.test(w)
    ),
  );
});
