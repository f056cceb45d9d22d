import type { SloPolicy } from "../../schema/slo.ts";
import { QUALITY_DIR, QUALITY_MANIFEST } from "../../schema/quality.ts";
import { estimatedRow } from "../goodput/accepted_estimate.ts";
import { classify } from "../goodput/classify.ts";
import { goodput, type GoodputResult, type GoodputRow } from "../goodput/goodput.ts";
import { classSlo, policyForRun, runWindow } from "../goodput/policy.ts";
import { inlineQualityPolicy, qualitySettings } from "../goodput/quality_source.ts";
import type { LoadedRun } from "../run/loaded_run.ts";
import { type CalibrationCache, type ClassQuality, resolveClassQuality } from "./_class_quality.ts";
import { withQualityColumn } from "./_quality_column.ts";
import { calibratedEstimator, type ClassEstimator, combine, humanEstimator, type Member } from "./_estimators.ts";
import { classDisclosure, type Estimated } from "./_class_disclosure.ts";
import { QUALITY_RULES, type QualityDisclosure } from "./quality_disclosure.ts";
import type { RunQuality } from "./verdicts.ts";

/** {@linkcode qualityGoodput}'s result: goodput's tables (estimated rows carry `estimate`) and the quality disclosure. */
export interface QualityGoodputResult extends GoodputResult {
  quality: QualityDisclosure;
}

/** The population of the estimated and judged classes: their requests in the window passing every gate but quality. */
function population(run: LoadedRun, policy: SloPolicy, classes: readonly string[]): Map<string, Member[]> {
  const out = new Map<string, Member[]>(classes.map((c) => [c, []]));
  if (!classes.length) return out;
  const forced = withQualityColumn(run, new Map(classes.map((c) => [c, () => true])));
  const rows = classify(forced, policy, runWindow(run, policy.window));
  const routes = run.requests.getColumn("route").toArray() as string[];
  const route = new Map((run.requests.getColumn("request_id").toArray() as string[]).map((id, i) => [id, routes[i]!]));
  const col = <T>(name: string) => rows.getColumn(name).toArray() as T[];
  const [id, cls, stage, mode, accepted] = [
    col<string>("request_id"),
    col<string>("class"),
    col<string>("stage"),
    col<string | null>("service_mode"),
    col<boolean>("accepted"),
  ];
  for (let i = 0; i < id.length; i++) {
    const list = out.get(cls[i]!);
    if (!list || !accepted[i]) continue;
    list.push({
      id: id[i]!,
      cls: cls[i]!,
      stage: stage[i]!,
      route: route.get(id[i]!) ?? "unknown",
      mode: mode[i] ?? null,
    });
  }
  return out;
}

/**
 * Accepted goodput of a run with each class's quality taken from the source its SLO names
 * (`quality_source`, schema/slo.ts; docs/quality_goodput.md):
 *
 * - `inline` (the default): the requests log's `quality_ok`, as {@linkcode goodput} counts it.
 * - `judge`: the judge's verdict on every request it scored; a request passing every other gate without a verdict is
 *   not accepted and counted as quality unknown.
 * - `human`: a stratified estimate (strata route × stage) from the reviewers' settled consensus; the class's rows
 *   carry the interval (`estimate`), and so does every total that includes it.
 * - `calibrated-judge`: the judge's pass share corrected by Rogan–Gladen with its sensitivity and specificity against
 *   the reviewers, with the delta-method interval.
 *
 * Refused (an `InputError` naming the class) when a source cannot be used: no table, no verdict, an unreviewed
 * stratum, or a judge whose kappa against the reviewers is below the policy's `quality.min_judge_kappa`. With every
 * class inline the result is {@linkcode goodput}'s, with an empty quality disclosure. Pure.
 *
 * @example
 * ```ts ignore
 * const run = await loadRun("out/run-1");
 * const result = qualityGoodput(run, policy, await loadRunQuality(run));
 * console.log(result.by_class.map((r) => [r.class, r.accepted, r.estimate?.accepted_low]));
 * ```
 */
export function qualityGoodput(run: LoadedRun, policy: SloPolicy, quality: RunQuality | null): QualityGoodputResult {
  const caller = "qualityGoodput() policy";
  policy = policyForRun(policy, run, caller);
  const settings = qualitySettings(policy);
  const inline = inlineQualityPolicy(policy);
  const present = [...new Set(run.requests.getColumn("class").toArray() as string[])].sort();
  const cache: CalibrationCache = new Map();
  const resolved = present.map((c) => resolveClassQuality(c, classSlo(policy, c), quality, settings, cache, caller))
    .filter((r): r is Exclude<ClassQuality, { source: "inline" }> => r.source !== "inline");
  const overrides = new Map(resolved.map((r) => [
    r.cls,
    r.source === "judge" ? (id: string) => r.verdicts.get(id) ?? null : () => true,
  ]));
  const base = goodput(withQualityColumn(run, overrides), inline);
  const members = population(run, inline, resolved.map((r) => r.cls));
  const level = settings.level;
  const estimators: ClassEstimator[] = [];
  const estimated = new Map<string, Estimated>();
  for (const r of resolved) {
    const m = members.get(r.cls)!;
    if (r.source === "human") {
      const h = humanEstimator(r.cls, m, r.consensus, level, caller);
      estimators.push(h.estimator);
      estimated.set(r.cls, { kind: "human", stratified: h.result, reviewed: h.reviewed, unresolved: h.unresolved });
    } else if (r.source === "calibrated-judge") {
      const c = calibratedEstimator(r.cls, r.judge, m, r.verdicts, r.calibration, level, caller);
      estimators.push(c.estimator);
      estimated.set(r.cls, { kind: "calibrated", correction: c.result });
    }
  }
  const den = policy.denominator;
  const adjust = <R extends GoodputRow>(row: R, keep: (m: Member) => boolean): R => {
    const parts = estimators.map((e) => ({ e, part: e.of(members.get(e.cls)!.filter(keep)) }))
      .filter(({ part }) => part.members > 0);
    if (!parts.length) return row;
    const c = combine(parts.map((p) => p.part), level);
    const exact = row.accepted - c.members;
    return estimatedRow(row, den, {
      point: exact + c.point,
      low: exact + c.low,
      high: exact + c.high,
      standard_error: c.sd,
      level,
      classes: parts.map(({ e }) => `${e.cls}: ${e.method}`),
      quality_failed: c.members - c.point,
    });
  };
  const by_class = base.by_class.map((r) => adjust(r, (m) => m.cls === r.class));
  const result: GoodputResult = {
    disclosure: base.disclosure,
    overall: adjust(base.overall, () => true),
    by_class,
    by_stage: base.by_stage.map((r) => adjust(r, (m) => m.stage === r.stage)),
    by_class_stage: base.by_class_stage.map((r) => adjust(r, (m) => m.cls === r.class && m.stage === r.stage)),
    by_mode: base.by_mode.map((r) => adjust(r, (m) => m.mode === r.mode)),
  };
  const classes = resolved.map((r) =>
    classDisclosure(r, members.get(r.cls)!, estimated.get(r.cls) ?? null, by_class.find((b) => b.class === r.cls), {
      quality: quality!,
      level,
    })
  );
  return {
    ...result,
    disclosure: withQualityRules(result.disclosure, policy, resolved, quality),
    quality: {
      settings,
      classes,
      rules: resolved.length ? [...QUALITY_RULES] : [],
    },
  };
}

/** The goodput disclosure with the policy's sources: its SLO as stated, each class's rule naming its source, the files. */
function withQualityRules(
  d: GoodputResult["disclosure"],
  policy: SloPolicy,
  resolved: readonly Exclude<ClassQuality, { source: "inline" }>[],
  quality: RunQuality | null,
): GoodputResult["disclosure"] {
  if (!resolved.length) return d;
  const slo_rules = { ...d.slo_rules };
  for (const r of resolved) {
    const judge = "judge" in r ? ` ${r.judge}` : "";
    if (slo_rules[r.cls]) slo_rules[r.cls] = `${slo_rules[r.cls]}; quality_ok from ${r.source}${judge}`;
  }
  const classes = Object.fromEntries(Object.keys(d.slo.classes).map((c) => [c, classSlo(policy, c)]));
  const parts = quality ? quality.table.manifest.parts.map((p) => `${QUALITY_DIR}/${p.file}`) : [];
  return {
    ...d,
    slo: { ...d.slo, classes, default: policy.default },
    slo_rules,
    files: { ...d.files, read: [...d.files.read, `${QUALITY_DIR}/${QUALITY_MANIFEST}`, ...parts] },
  };
}
