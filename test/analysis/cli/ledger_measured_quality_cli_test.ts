import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runCli } from "../../support/run_cli.ts";
import { POLICY, policyWith, writeQualityRun } from "../quality/_quality_fixture.ts";
import { qualityOverheads, qualitySheet, TOTAL } from "../cost/quality_ledger_fixture.ts";

/*
 * The quality fixture run (judge m only) priced as test/analysis/cost/quality_ledger_fixture.ts: total 0.2402 USD.
 * judge m: 16 accepted → 0.0150125; human: ≈15 [10.61739, 19.38261] → 0.0160133 in [0.0123926, 0.0226233]
 * (test/analysis/cost/quality_ledger_test.ts works both by hand).
 */
const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const CLI = join(ROOT, "analysis/cli/ledger.ts");
const close = (a: number | null, b: number, what: string, tol = 1e-9) =>
  assert.ok(a !== null && Math.abs(a - b) < tol, `${what}: ${a} vs ${b}`);

Deno.test("ledger CLI under a measured quality source: text, --json and the kappa refusal", async (t) => {
  const tmp = Deno.makeTempDirSync();
  const file = (name: string, v: unknown) => {
    Deno.writeTextFileSync(join(tmp, name), JSON.stringify(v));
    return join(tmp, name);
  };
  const dir = await writeQualityRun(join(tmp, "run"), { judges: ["m"] });
  const prices = file("prices.json", qualitySheet());
  const overheads = file("overheads.json", qualityOverheads());
  const ledger = (slo: string, ...more: string[]) =>
    runCli(CLI, [dir, "--prices", prices, "--overheads", overheads, "--slo", slo, ...more]);

  await t.step("judge: --json exact counts, the source per class, no interval", async () => {
    const r = await ledger(file("judge.json", policyWith("judge", "m")), "--json");
    assert.equal(r.code, 0, r.stderr);
    const j = JSON.parse(r.stdout);
    close(j.overall.total, TOTAL, "total");
    assert.equal(j.overall.accepted, 16);
    close(j.overall.cost_per_accepted_task, TOTAL / 16, "0.2402 / 16");
    const summ = j.quality.by_class.find((c: { class: string }) => c.class === "summ");
    assert.deepEqual([summ.source, summ.judge, summ.method, summ.accepted, summ.level], [
      "judge",
      "m",
      "verdict_count",
      13,
      null,
    ]);
    assert.deepEqual(j.quality.by_route.not_given, ["a"]);
    assert.equal(j.by_route[0].cost_per_accepted_task, null);
    assert.equal(j.quality.disclosure.classes[0].source, "judge");
  });

  await t.step("human: --json and text carry the interval and say it comes from the acceptance only", async () => {
    const slo = file("human.json", policyWith("human"));
    const j = JSON.parse((await ledger(slo, "--json")).stdout);
    const o = j.quality.overall;
    close(o.cost_per_accepted_task, TOTAL / 15, "point", 1e-7);
    close(o.cost_per_accepted_task_low, 0.0123926, "low", 1e-7);
    close(o.cost_per_accepted_task_high, 0.0226233, "high", 1e-7);
    assert.equal(o.unbounded_above, false);
    assert.ok(j.quality.rules.some((s: string) => /interval only: prices are taken as exact/.test(s)));
    assert.ok(j.caveats.some((c: { label: string }) => c.label === "QUALITY ESTIMATED"), JSON.stringify(j.caveats));
    const r = await ledger(slo);
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stdout,
      /cost per accepted task ≈0\.01601 USD = 0\.2402 USD \/ ≈15\.0 accepted, 95 % interval \[0\.01239, 0\.02262\] from the accepted count's \[10\.6, 19\.4\]/,
    );
    assert.match(r.stdout, /^summ +human +stratified_normal_fpc +≈12\.0 \[7\.6, 16\.4\]/m);
    assert.match(r.stdout, /^NOTE +QUALITY ESTIMATED: class summ: accepted ≈12\.0 \[7\.6, 16\.4\]/m);
  });

  await t.step("a judge below min_judge_kappa: exit 2 naming class, judge and kappa, no stack trace", async () => {
    const q = { min_judge_kappa: 0.61, level: 0.95, min_calibration_per_side: 10 };
    const r = await ledger(file("strict.json", policyWith("calibrated-judge", "m", q)));
    assert.equal(r.code, 2, r.stdout);
    assert.match(r.stderr, /class summ: quality source calibrated-judge refused: judge m's Cohen's kappa/);
    assert.match(r.stderr, /below the policy's min_judge_kappa 0\.61/);
    assert.doesNotMatch(r.stderr, /^\s+at /m, "no stack trace");
  });

  await t.step("inline: no quality section, the ledger as before", async () => {
    const r = await ledger(file("inline.json", POLICY), "--json");
    assert.equal(r.code, 0, r.stderr);
    const j = JSON.parse(r.stdout);
    assert.equal(j.quality, undefined);
    assert.equal(j.overall.accepted, 23);
  });
});
