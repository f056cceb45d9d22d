import assert from "node:assert/strict";
import { roganGladen, type RoganGladenUsable } from "../../../analysis/quality/rogan_gladen.ts";

function usable(r: ReturnType<typeof roganGladen>): RoganGladenUsable {
  assert.ok(r.usable, r.usable ? "" : r.reason);
  return r;
}

/** θ(p, Se, Sp) of Rogan & Gladen. */
const theta = (p: number, se: number, sp: number) => (p + sp - 1) / (se + sp - 1);

Deno.test("roganGladen() gives epiR's epi.prev example: 23 of 150 positive, Se 0.96, Sp 0.89 → 5.1 per 100", () => {
  // epiR documentation, epi.prev(): 150 cows tested, 23 positive; true prevalence 5.1 cases per 100.
  // (23/150 + 0.89 − 1)/(0.96 + 0.89 − 1) = 0.0433333/0.85 = 0.0509804
  const r = usable(roganGladen({ judged_pass: 23, judged_n: 150, tp: 96, fn: 4, tn: 89, fp: 11 }));
  assert.equal((r.estimate * 100).toFixed(1), "5.1");
  assert.ok(Math.abs(r.estimate - 0.0433333333 / 0.85) < 1e-9);
  assert.deepEqual([r.sensitivity, r.specificity, r.n_pos, r.n_neg], [0.96, 0.89, 100, 100]);
});

Deno.test("roganGladen()'s delta interval by hand", () => {
  // p = 600/1000 = 0.6, Se = 90/100 = 0.9, Sp = 80/100 = 0.8, J = 0.7, θ = 0.4/0.7 = 0.5714286.
  // Var = [0.6·0.4/1000 + θ²·0.9·0.1/100 + (1 − θ)²·0.8·0.2/100]/0.7²
  //     = [0.00024 + 0.3265306·0.0009 + 0.1836735·0.0016]/0.49
  //     = [0.00024 + 0.00029388 + 0.00029388]/0.49 = 0.00082776/0.49 = 0.00168930; SE = 0.0411011.
  // 95 %: θ ± 1.959964·0.0411011 = 0.5714286 ± 0.0805567 → [0.4908719, 0.6519852]
  const r = usable(roganGladen({ judged_pass: 600, judged_n: 1000, tp: 90, fn: 10, tn: 80, fp: 20 }));
  assert.ok(Math.abs(r.estimate - 0.5714286) < 1e-7);
  assert.ok(Math.abs(r.standard_error! - 0.0411011) < 1e-7);
  assert.ok(Math.abs(r.low - 0.4908719) < 1e-6 && Math.abs(r.high - 0.6519852) < 1e-6, `${r.low} ${r.high}`);
  assert.deepEqual([r.method, r.level, r.clipped, r.bootstrap], ["delta", 0.95, false, null]);
});

Deno.test("roganGladen()'s delta variance equals the gradient of θ by finite differences, times the binomial variances", () => {
  const cases = [
    { judged_pass: 310, judged_n: 500, tp: 70, fn: 12, tn: 60, fp: 9 },
    { judged_pass: 45, judged_n: 90, tp: 30, fn: 10, tn: 25, fp: 15 },
    { judged_pass: 900, judged_n: 1000, tp: 190, fn: 10, tn: 150, fp: 50 },
  ];
  for (const c of cases) {
    const p = c.judged_pass / c.judged_n, se = c.tp / (c.tp + c.fn), sp = c.tn / (c.tn + c.fp);
    const h = 1e-6;
    const dp = (theta(p + h, se, sp) - theta(p - h, se, sp)) / (2 * h);
    const dse = (theta(p, se + h, sp) - theta(p, se - h, sp)) / (2 * h);
    const dsp = (theta(p, se, sp + h) - theta(p, se, sp - h)) / (2 * h);
    const variance = dp ** 2 * p * (1 - p) / c.judged_n + dse ** 2 * se * (1 - se) / (c.tp + c.fn) +
      dsp ** 2 * sp * (1 - sp) / (c.tn + c.fp);
    const r = usable(roganGladen(c));
    assert.ok(Math.abs(r.standard_error! - Math.sqrt(variance)) < 1e-8, JSON.stringify(c));
  }
});

Deno.test("roganGladen(): the delta and parametric-bootstrap intervals agree on a large sample", () => {
  // 20 000 judged, 5 000 calibration items each way. Tolerance: each end within 10 % of the delta half-width
  // (the bootstrap's Monte Carlo error at 2000 resamples is about 6 % of the SE at a 2.5 % quantile).
  const counts = { judged_pass: 11_000, judged_n: 20_000, tp: 4_400, fn: 600, tn: 4_250, fp: 750 };
  const delta = usable(roganGladen(counts));
  const boot = usable(roganGladen(counts, { method: "bootstrap", seed: 2 }));
  const half = (delta.high - delta.low) / 2;
  assert.ok(Math.abs(boot.low - delta.low) < 0.1 * half, `low ${boot.low} vs ${delta.low}`);
  assert.ok(Math.abs(boot.high - delta.high) < 0.1 * half, `high ${boot.high} vs ${delta.high}`);
  assert.deepEqual(boot.bootstrap, { resamples: 2000, seed: 2, resamples_undefined: 0 });
  assert.equal(boot.estimate, delta.estimate);
  assert.equal(boot.standard_error, null);
});

Deno.test("roganGladen()'s bootstrap is reproducible from its seed", () => {
  const counts = { judged_pass: 60, judged_n: 100, tp: 40, fn: 10, tn: 35, fp: 15 };
  const a = roganGladen(counts, { method: "bootstrap", resamples: 300, seed: 7 });
  assert.deepEqual(a, roganGladen(counts, { method: "bootstrap", resamples: 300, seed: 7 }));
  assert.notDeepEqual(a, roganGladen(counts, { method: "bootstrap", resamples: 300, seed: 8 }));
});

Deno.test("roganGladen() clips to [0, 1] and says so", async (t) => {
  await t.step("fewer judged passes than the false-pass rate alone gives: θ < 0 → 0", () => {
    // p = 0.05, Sp = 0.9 → p + Sp − 1 = −0.05; J = 0.8 → θ = −0.0625
    const r = usable(roganGladen({ judged_pass: 5, judged_n: 100, tp: 90, fn: 10, tn: 90, fp: 10 }));
    assert.deepEqual([r.estimate, r.clipped, r.low], [0, true, 0]);
    assert.ok(Math.abs(r.raw_estimate + 0.0625) < 1e-12);
    assert.ok(r.high > 0 && r.high < 0.1);
  });
  await t.step("more judged passes than sensitivity allows: θ > 1 → 1", () => {
    // p = 0.95, Se = 0.9, Sp = 0.9: θ = 0.85/0.8 = 1.0625
    const r = usable(roganGladen({ judged_pass: 95, judged_n: 100, tp: 90, fn: 10, tn: 90, fp: 10 }));
    assert.deepEqual([r.estimate, r.clipped, r.high], [1, true, 1]);
    assert.ok(Math.abs(r.raw_estimate - 1.0625) < 1e-12);
  });
});

Deno.test("roganGladen() refuses what it cannot correct, with the reason", async (t) => {
  await t.step("Se + Sp − 1 ≤ 0.05: the judge carries no information", () => {
    // Se = 0.5, Sp = 0.54: J = 0.04
    const r = roganGladen({ judged_pass: 50, judged_n: 100, tp: 50, fn: 50, tn: 54, fp: 46 });
    assert.equal(r.usable, false);
    assert.match(!r.usable ? r.reason : "", /Se \+ Sp − 1 = 0\.0400 ≤ 0\.05/);
    assert.deepEqual([r.estimate, r.low, r.high], [null, null, null]);
    assert.ok(Math.abs(r.youden! - 0.04) < 1e-12);
  });
  await t.step("a judge worse than chance (J < 0) is refused too", () => {
    assert.equal(roganGladen({ judged_pass: 5, judged_n: 10, tp: 2, fn: 8, tn: 3, fp: 7 }).usable, false);
  });
  await t.step("no truly passing calibration item: sensitivity unknown", () => {
    const r = roganGladen({ judged_pass: 5, judged_n: 10, tp: 0, fn: 0, tn: 9, fp: 1 });
    assert.match(!r.usable ? r.reason : "", /tp \+ fn = 0/);
    assert.equal(r.sensitivity, null);
  });
  await t.step("no truly failing calibration item: specificity unknown", () => {
    const r = roganGladen({ judged_pass: 5, judged_n: 10, tp: 9, fn: 1, tn: 0, fp: 0 });
    assert.match(!r.usable ? r.reason : "", /tn \+ fp = 0/);
  });
  await t.step("nothing judged", () => {
    const r = roganGladen({ judged_pass: 0, judged_n: 0, tp: 9, fn: 1, tn: 9, fp: 1 });
    assert.match(!r.usable ? r.reason : "", /judged_n = 0/);
    assert.equal(r.apparent, null);
  });
  await t.step("bad counts are a RangeError naming the field", () => {
    assert.throws(() => roganGladen({ judged_pass: 11, judged_n: 10, tp: 1, fn: 1, tn: 1, fp: 1 }), /judged_pass/);
    assert.throws(() => roganGladen({ judged_pass: 1, judged_n: 10, tp: -1, fn: 1, tn: 1, fp: 1 }), /tp/);
    assert.throws(
      () => roganGladen({ judged_pass: 1, judged_n: 10, tp: 1, fn: 1, tn: 1, fp: 1 }, { method: "exact" } as never),
      /method/,
    );
  });
});
