import assert from "node:assert/strict";
import { join } from "node:path";
import { ledger } from "../../../analysis/cost/ledger.ts";
import { priceLines, sensitivity, withPrice } from "../../../analysis/compare/sensitivity.ts";
import { loadRun } from "../../../analysis/run/load_run.ts";
import type { LoadedRun } from "../../../analysis/run/loaded_run.ts";
import { withQuality } from "../../../analysis/run/run_quality.ts";
import { makeManifest, writeRun } from "../_fixture.ts";
import { LEDGER_POLICY, LEDGER_STAGES, ledgerTables, overheadsA, sheetA } from "../cost/ledger_fixture.ts";
import { writeJudgePart, writeReviewParts } from "../cost/ledger_quality_fixture.ts";

/*
 * The hand-worked ledger run twice, as two routes: "verdicts" with the quality table of ledger_quality_fixture.ts,
 * "plain" without one (test/analysis/cost/ledger_quality_test.ts has the arithmetic):
 *   verdicts: total 0.33015 = … + judge 0.01125 (3750 input, 375 output tokens of model m at 2 and 10 USD/Mtok) +
 *             recorded review 0.15 (15 min = 0.25 h × 0.6); per accepted task 0.33015 / 3 = 0.11005.
 *   plain:    total 0.3489 with the expected review 0.18 (0.3 h × 0.6); per accepted task 0.1163.
 * verdicts is cheaper, gap 0.1163 − 0.11005 = 0.00625.
 * Judge input price (2): slope verdicts = 3750 / 1e6 / 3 = 0.00125 per USD/Mtok, plain 0. Break-even =
 *   2 + 0.00625 / (0.00125 − 0) = 7 (plain cheaper above it; at 7: 0.33015 + 3750e-6 × 5 = 0.3489).
 * Review hourly (0.6): slope verdicts = 0.25 h / 3, plain = 0.3 h / 3 = 0.1. Break-even =
 *   0.6 + 0.00625 / (0.25 / 3 − 0.1) = 0.6 − 0.375 = 0.225 (at it: verdicts 0.18015 + 0.25 × 0.225 = 0.2364,
 *   plain 0.1689 + 0.3 × 0.225 = 0.2364).
 */
const close = (a: number | null | undefined, b: number, what: string) =>
  assert.ok(a != null && Math.abs(a - b) < 1e-9, `${what}: ${a} ≠ ${b}`);

const overheads = () =>
  overheadsA({
    evaluation: { judge_models: { m: { input_per_mtok: 2, output_per_mtok: 10, source: "test judge quote" } } },
  });

async function route(name: string, verdicts: boolean): Promise<LoadedRun> {
  const manifest = makeManifest(LEDGER_STAGES, { run_id: `run-${name}` });
  manifest.conditions = { ...manifest.conditions, route: name };
  const dir = writeRun(join(Deno.makeTempDirSync(), name), manifest, ledgerTables());
  if (verdicts) {
    await writeJudgePart(dir);
    await writeReviewParts(dir);
  }
  return await withQuality(await loadRun(dir, { onWarning: () => {} }));
}

const JUDGE_IN = "overheads.evaluation.judge_models.m.input_per_mtok";

Deno.test("the judge's price and the reviewer's hourly are price lines like any other", async (t) => {
  const runs = [await route("verdicts", true), await route("plain", false)];
  await t.step("priceLines() lists the judge model's two prices with their source", () => {
    const lines = priceLines(sheetA(), overheads(), ["hosted"]);
    const judge = lines.filter((l) => l.id.startsWith("overheads.evaluation."));
    assert.deepEqual(judge.map((l) => [l.id, l.value, l.unit, l.source]), [
      [JUDGE_IN, 2, "USD per Mtok of judge input", "test judge quote"],
      ["overheads.evaluation.judge_models.m.output_per_mtok", 10, "USD per Mtok of judge output", "test judge quote"],
    ]);
  });
  await t.step("withPrice() re-prices the judge: 4 USD/Mtok doubles its input lines", () => {
    const line = priceLines(sheetA(), overheads(), ["hosted"]).find((l) => l.id === JUDGE_IN)!;
    const s = withPrice(line, 4, sheetA(), overheads());
    const r = ledger(runs[0]!, LEDGER_POLICY, s.prices, { overheads: s.overheads });
    // 0.01125 + 3750 input tokens × 2 more USD/Mtok = 0.01125 + 0.0075 = 0.01875.
    close(r.overall.cost.judge, 0.01875, "judge at 4");
  });
  await t.step("break-even prices and the tornado see them", () => {
    const s = sensitivity(runs, LEDGER_POLICY, sheetA(), { overheads: overheads() });
    assert.deepEqual(s.routes.map((r) => r.route), ["verdicts", "plain"]);
    close(s.routes[0]!.cost_per_accepted_task, 0.11005, "verdicts");
    close(s.routes[1]!.cost_per_accepted_task, 0.1163, "plain");
    const judge = s.break_even.find((b) => b.line === JUDGE_IN)!;
    close(judge.slope_cheaper, 0.00125, "judge slope, verdicts");
    close(judge.slope_dearer, 0, "judge slope, plain");
    close(judge.price, 7, "judge break-even");
    assert.equal(judge.dearer_wins, "above");
    const hourly = s.break_even.find((b) => b.line === "overheads.human_review.hourly")!;
    close(hourly.slope_cheaper, 0.25 / 3, "recorded hours per accepted task");
    close(hourly.slope_dearer, 0.1, "expected hours per accepted task");
    close(hourly.price, 0.225, "hourly break-even");
    const bar = s.tornado.find((x) => x.line === JUDGE_IN)!;
    // Range ×0.5–×2: 1 to 4 USD/Mtok, a swing of 3 × 0.00125 = 0.00375 on verdicts, none on plain.
    assert.deepEqual([bar.low, bar.high], [1, 4]);
    close(bar.max_swing, 0.00375, "judge swing");
  });
});
