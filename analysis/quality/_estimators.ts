/**
 * The accepted count of a class whose quality is known on a sample (`human`: stratified) or through a judge corrected
 * for its measured error (`calibrated-judge`: Rogan–Gladen), for any subset of the class's population (a stage, a
 * service mode), and their sum over several classes with its interval. Private to analysis/quality/.
 *
 * @module
 */
import { InputError } from "../../schema/errors.ts";
import { normalQuantile } from "../../lib/normal_quantile.ts";
import type { Consensus } from "./consensus.ts";
import { roganGladen, type RoganGladenUsable } from "./rogan_gladen.ts";
import { stratifiedProportion, type StratifiedResult } from "./stratified.ts";
import type { UsedCalibration } from "./_class_quality.ts";

/** A request of an estimated class that passes every gate of its SLO but quality: the population. */
export interface Member {
  id: string;
  cls: string;
  stage: string;
  route: string;
  mode: string | null;
}

/** One class's contribution to a row: point, standard error, the most it can add, how many it stands for. */
export interface Contribution {
  point: number;
  sd: number;
  /** The largest accepted count possible: the members whose quality can pass (a judge's unknowns cannot). */
  cap: number;
  /** Members of the class in the subset. */
  members: number;
  /** Contributions of one group are correlated (they share one calibration): their errors add, not their variances. */
  group: string;
}

/** The estimator of one class: its contribution for any subset of its members. */
export interface ClassEstimator {
  cls: string;
  method: "stratified" | "rogan_gladen_delta";
  of(members: readonly Member[]): Contribution;
}

/** The stratum of a member: route × stage. */
export const stratumOf = (m: Pick<Member, "route" | "stage">): string => `${m.route} × ${m.stage}`;

/** The stratified estimator of a `human` class, with the class's stratified result and its sample's counts. */
export function humanEstimator(
  cls: string,
  members: readonly Member[],
  consensus: ReadonlyMap<string, Consensus>,
  level: number,
  caller: string,
): { estimator: ClassEstimator; result: StratifiedResult; unresolved: number; reviewed: number } {
  const strata = new Map<string, { population: number; sampled: number; passed: number }>();
  let unresolved = 0;
  for (const m of members) {
    const s = strata.get(stratumOf(m)) ?? { population: 0, sampled: 0, passed: 0 };
    s.population++;
    const c = consensus.get(m.id);
    if (c && c.pass !== null) {
      s.sampled++;
      if (c.pass) s.passed++;
    } else if (c) unresolved++;
    strata.set(stratumOf(m), s);
  }
  const names = [...strata.keys()].sort();
  const empty = names.filter((n) => strata.get(n)!.sampled === 0);
  if (empty.length) {
    throw new InputError(
      `${caller}: class ${cls}: quality source human refused: a stratum (route × stage) with requests has no reviewed ` +
        "item, so the estimate would leave it out",
      empty.map((n) =>
        `${caller}: class ${cls}, stratum ${n}: ${strata.get(n)!.population} requests pass every other gate, none ` +
        "reviewed with a settled verdict: review some (deno task review sample), or adjudicate its disagreements"
      ),
    );
  }
  const result = stratifiedProportion(names.map((name) => ({ name, ...strata.get(name)! })), { level });
  // v(p̂_h) = the stratum's variance term / W_h²: the variance of its pass share, for any part of its population.
  const share = new Map(
    result.strata.map((s) => [s.name, { p: s.estimate ?? 0, v: s.weight ? s.variance / s.weight ** 2 : 0 }]),
  );
  const estimator: ClassEstimator = {
    cls,
    method: "stratified",
    of(subset) {
      const n = new Map<string, number>();
      for (const m of subset) n.set(stratumOf(m), (n.get(stratumOf(m)) ?? 0) + 1);
      let point = 0, variance = 0;
      for (const [h, k] of n) {
        const s = share.get(h)!;
        point += k * s.p;
        variance += k * k * s.v;
      }
      return { point, sd: Math.sqrt(variance), cap: subset.length, members: subset.length, group: `human:${cls}` };
    },
  };
  const reviewed = names.reduce((a, n) => a + strata.get(n)!.sampled, 0);
  return { estimator, result, unresolved, reviewed };
}

/** The Rogan–Gladen estimator of a `calibrated-judge` class, with the class's correction. */
export function calibratedEstimator(
  cls: string,
  judge: string,
  members: readonly Member[],
  verdicts: ReadonlyMap<string, boolean>,
  calibration: UsedCalibration,
  level: number,
  caller: string,
): { estimator: ClassEstimator; result: RoganGladenUsable | null } {
  const { tp, fn, tn, fp } = calibration.cell;
  const correct = (subset: readonly Member[]) => {
    const judged = subset.filter((m) => verdicts.has(m.id));
    const judged_pass = judged.filter((m) => verdicts.get(m.id)).length;
    return {
      judged: judged.length,
      rg: roganGladen({ judged_pass, judged_n: judged.length, tp, fn, tn, fp }, { level }),
    };
  };
  const whole = correct(members);
  // A judge that says (almost) nothing about the truth, or a calibration without passes or fails: no correction.
  if (!whole.rg.usable && whole.judged > 0) {
    throw new InputError(
      `${caller}: class ${cls}: quality source calibrated-judge refused: judge ${judge}'s correction cannot be made: ` +
        whole.rg.reason,
    );
  }
  const group = calibration.scope === "pooled" ? `pooled:${judge}` : `calibrated:${cls}`;
  const estimator: ClassEstimator = {
    cls,
    method: "rogan_gladen_delta",
    of(subset) {
      const { judged, rg } = correct(subset);
      if (!judged || !rg.usable) return { point: 0, sd: 0, cap: 0, members: subset.length, group };
      return {
        point: judged * rg.estimate,
        sd: judged * (rg.standard_error ?? 0),
        cap: judged,
        members: subset.length,
        group,
      };
    },
  };
  return { estimator, result: whole.rg.usable ? whole.rg : null };
}

/**
 * Several classes' contributions to one row, summed: the point estimates add; standard errors add within a group
 * (classes corrected with one pooled calibration share its error: a bound, as if fully correlated) and in quadrature
 * across groups (independent samples). The interval, point ± z·sd, is clipped to what the members allow: at least
 * none accepted, at most every member whose quality can pass.
 */
export function combine(
  parts: readonly Contribution[],
  level: number,
): { point: number; sd: number; low: number; high: number; members: number } {
  const bySum = new Map<string, number>();
  for (const p of parts) bySum.set(p.group, (bySum.get(p.group) ?? 0) + p.sd);
  const sd = Math.sqrt([...bySum.values()].reduce((a, s) => a + s * s, 0));
  const point = parts.reduce((a, p) => a + p.point, 0);
  const cap = parts.reduce((a, p) => a + p.cap, 0);
  const z = normalQuantile((1 + level) / 2);
  return {
    point,
    sd,
    low: Math.max(0, point - z * sd),
    high: Math.min(cap, point + z * sd),
    members: parts.reduce((a, p) => a + p.members, 0),
  };
}
