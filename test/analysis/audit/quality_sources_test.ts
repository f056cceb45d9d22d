import assert from "node:assert/strict";
import { alternatives } from "../../../analysis/audit/alternatives.ts";
import { audit } from "../../../analysis/audit/audit.ts";
import { onlySourceNote } from "../../../analysis/audit/_quality_search.ts";
import type { ResolvedClaim } from "../../../analysis/audit/claim.ts";
import { formatAlternatives } from "../../../analysis/audit/format_alternatives.ts";
import { acceptanceBySource } from "../../../analysis/quality/acceptance_by_source.ts";
import { sourceVariants } from "../../../analysis/quality/quality_variants.ts";
import { loadRunQuality } from "../../../analysis/quality/verdicts.ts";
import { loadRun } from "../../../analysis/run/load_run.ts";
import { POLICY, policyWith, writeQualityRun } from "../quality/_quality_fixture.ts";

const run = await loadRun(await writeQualityRun());
const quality = (await loadRunQuality(run))!;
const close = (a: number | null | undefined, b: number, what: string) =>
  assert.ok(a !== null && a !== undefined && Math.abs(a - b) < 1e-9, `${what}: ${a} vs ${b}`);

Deno.test("alternatives() adds the quality sources of the run's table as a dimension (gates on)", async (t) => {
  const alt = alternatives(run, POLICY, { class: "summ", quality });
  const row = (quality: string, slo = "strict", window = "policy", denominator = "offered") =>
    alt.rows.find((r) =>
      r.quality === quality && r.slo === slo && r.window === window && r.denominator === denominator && r.gates === "on"
    );
  await t.step("sources: inline is the policy's; lenient's judge (κ 14/47 < 0.6) refused in every combination", () => {
    const sources = [...new Set(alt.rows.map((r) => r.quality))];
    assert.deepEqual(sources, [
      "policy",
      "judge:m",
      "judge:quick",
      "human",
      "calibrated-judge:m",
      "calibrated-judge:quick",
    ]);
    // 3 windows × 2 SLOs × (6 sources with gates on + 1 with gates off) × 3 denominators.
    assert.equal(alt.rows.length, 3 * 2 * 7 * 3);
    assert.equal(alt.refused.length, 3 * 2 * 2);
    assert.ok(alt.refused.every((r) => r.quality.endsWith(":lenient") && /min_judge_kappa 0\.6/.test(r.reason)));
    assert.equal(alt.headline.quality, "policy");
  });
  await t.step("summ under each source: inline 20, judge m 13, quick 12, human ≈12, calibrated m ≈224/17", () => {
    assert.equal(row("policy")!.accepted, 20);
    assert.equal(row("judge:m")!.accepted, 13);
    assert.equal(row("judge:m")!.acceptance_rate, 13 / 21);
    assert.equal(row("judge:m")!.differs_from_headline, true);
    assert.equal(row("judge:quick")!.accepted, 12);
    close(row("human")!.accepted, 12, "human");
    assert.ok(row("human")!.estimate !== null);
    close(row("calibrated-judge:m")!.accepted, 20 * 0.4 * 28 / 17, "calibrated");
    // Lenient ×2: s21 (e2e 1500 ≤ 2000) joins the population; judge m passes it: 14.
    assert.equal(row("judge:m", "lenient")!.accepted, 14);
  });
  await t.step("the text table has a quality column and lists the refusals", () => {
    const text = formatAlternatives(alt);
    // judge m: 13 / 20 s = 0.65/s; 13/21 = 0.6190; miss 8/21 = 0.3810.
    assert.match(
      text,
      /^policy\s+strict\s+on\s+judge:m\s+offered\s+13\s+21\s+20\.0\s+0\.6500\s+0\.6190\s+0\.3810\s+\*$/m,
    );
    assert.match(text, /^refused: window policy, slo strict, quality judge:lenient: judge lenient's Cohen's kappa/m);
  });
  await t.step("a policy naming judge m: judge m is its own rows (policy), inline is searched", () => {
    const labels = sourceVariants(policyWith("judge", "m"), quality).map((v) => v.label);
    assert.ok(!labels.includes("judge:m") && labels.includes("inline"));
    // Under the inline policy, inline is the policy's rows: not searched again.
    assert.ok(!sourceVariants(POLICY, quality).some((v) => v.label === "inline"));
  });
});

Deno.test("audit() names the one quality source a claim reproduces with", async (t) => {
  await t.step("0.6429 = 13.5/21: only the human estimate with s21 in the population gives it", () => {
    // Latency ×1.5, ×2 or none: s21 (e2e 1500) joins stratum a × peak, reviewed (ann T): N 11, n 6, 3 pass → p 0.5;
    // a × low: 10 × 0.8 = 8; 8 + 11 × 0.5 = 13.5 of 21 offered = 0.642857 (within ±0.00005 of 0.6429).
    // No other source gives it: judge m 14/21, quick 13/21, calibrated m ≈14.4/21, inline 21/21.
    const claim: ResolvedClaim = {
      metric: "acceptance_rate",
      value: 0.6429,
      class: "summ",
      stage: null,
      source: "test",
      slo: undefined,
    };
    const r = audit(run, claim, { policy: POLICY, quality });
    assert.equal(r.stated.match, false); // inline: 20/21
    assert.ok(r.reproducing.length > 0 && r.reproducing.every((c) => c.quality === "human" && c.slo !== "stated"));
    assert.ok(r.notes.includes("the claimed value reproduces only with the open-ended classes' quality from human"));
    // 3 windows × 4 SLOs × (6 sources with gates on + gates off) × 3 denominators; lenient's judge refused throughout.
    assert.equal(r.searched, 3 * 4 * 7 * 3);
  });
  await t.step("a judge's verdicts as they are read as uncalibrated in the note", () => {
    assert.equal(
      onlySourceNote([{ quality: "judge:m" }, { quality: "judge:m" }]),
      "the claimed value reproduces only with the open-ended classes' quality from judge:m (uncalibrated)",
    );
    assert.equal(onlySourceNote([{ quality: "judge:m" }, {}]), null); // gates off reproduce it too
    // 13/21 = 0.619 reproduces with judge m (stated SLO) and with quick once s21 is let in: no single source.
    assert.equal(onlySourceNote([{ quality: "judge:m" }, { quality: "judge:quick" }]), null);
  });
});

Deno.test("acceptanceBySource(): summ with every source the table holds, refusals as rows", () => {
  const rows = acceptanceBySource(run, POLICY, quality);
  assert.deepEqual(rows.map((r) => r.source), [
    "inline",
    "judge:lenient",
    "judge:m",
    "judge:quick",
    "human",
    "calibrated-judge:lenient",
    "calibrated-judge:m",
    "calibrated-judge:quick",
  ]);
  const by = (s: string) => rows.find((r) => r.source === s)!;
  assert.deepEqual([by("inline").accepted, by("inline").policy, by("judge:m").accepted], [20, true, 13]);
  assert.deepEqual([by("judge:quick").accepted, by("judge:quick").quality_unknown], [12, 1]);
  assert.match(by("judge:lenient").refused!, /kappa .* is 0\.298/);
  close(by("human").accepted, 12, "human");
  close(by("human").acceptance_low, by("human").accepted_low! / 21, "acceptance low");
});
