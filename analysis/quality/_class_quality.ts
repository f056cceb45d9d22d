/**
 * One class's measured quality source resolved against a run's quality table: which judge, which calibration, the
 * refusals. Private to analysis/quality/.
 *
 * @module
 */
import { InputError } from "../../schema/errors.ts";
import type { ClassSlo, QualitySettings, QualitySourceName } from "../../schema/slo.ts";
import { qualitySourceOf } from "../goodput/quality_source.ts";
import { type CalibrationCell, type JudgeCalibration, judgeCalibration } from "./calibration.ts";
import { type Consensus, humanConsensus } from "./consensus.ts";
import type { RunQuality } from "./verdicts.ts";

/** The calibration a judge source uses for one class, and why that one. */
export interface UsedCalibration {
  /** `class`: the class's own items; `pooled`: every class's (the class has too few on one side). */
  scope: "class" | "pooled";
  cell: CalibrationCell;
  /** The class's own items: truly passing, truly failing (the scope rule compares them to the minimum). */
  class_pass: number;
  class_fail: number;
}

/** A class's quality source, resolved. */
export type ClassQuality =
  | { source: "inline"; cls: string }
  | { source: "judge"; cls: string; judge: string; verdicts: Map<string, boolean>; calibration: UsedCalibration | null }
  | { source: "human"; cls: string; consensus: Map<string, Consensus> }
  | {
    source: "calibrated-judge";
    cls: string;
    judge: string;
    verdicts: Map<string, boolean>;
    calibration: UsedCalibration;
  };

/** Calibrations by judge model, computed once per analysis. */
export type CalibrationCache = Map<string, JudgeCalibration>;

const kappaText = (c: CalibrationCell) => {
  const k = c.kappa;
  const ci = k.ci.low === null
    ? "no interval"
    : `${k.ci.level * 100} % interval [${k.ci.low.toFixed(3)}, ${k.ci.high!.toFixed(3)}]`;
  return `${k.kappa === null ? "undefined" : k.kappa.toFixed(3)} (${ci}; n = ${c.n})`;
};

/**
 * Resolves the quality source of class `cls` (its SLO entry's `quality_source`, `judge`) against the run's quality
 * table. Throws an {@linkcode InputError} naming the class when it cannot be used: no quality table; a judge not in
 * the table, or several judges and none named; no verdict of the kind at all; a judge whose kappa against the
 * reviewers' consensus is below `settings.min_judge_kappa` (or, for `calibrated-judge`, cannot be measured).
 */
export function resolveClassQuality(
  cls: string,
  slo: ClassSlo,
  quality: RunQuality | null,
  settings: QualitySettings,
  cache: CalibrationCache,
  caller: string,
): ClassQuality {
  const source: QualitySourceName = qualitySourceOf(slo);
  if (source === "inline") return { source, cls };
  const refuse = (why: string): never => {
    throw new InputError(`${caller}: class ${cls}: quality source ${source} refused: ${why}`);
  };
  if (!quality) return refuse("the run has no quality table (RUN/quality/quality.json): nothing to read verdicts from");
  if (source === "human") {
    const consensus = humanConsensus(quality.rows.filter((r) => quality.class_of.get(r.request_id) === cls));
    if (!consensus.size) refuse("no human verdict on any request of the class");
    return { source, cls, consensus };
  }
  const judge = slo.judge ?? (quality.judges.length === 1 ? quality.judges[0]! : null);
  if (judge === null) {
    refuse(
      quality.judges.length
        ? `the table holds several judges (${quality.judges.join(", ")}): name one with the class's "judge"`
        : "the table holds no judge verdict",
    );
  }
  if (!quality.judges.includes(judge!)) {
    refuse(`judge ${judge} has no verdict in the table (judges: ${quality.judges.join(", ") || "none"})`);
  }
  const verdicts = new Map<string, boolean>();
  for (const r of quality.rows) {
    if (r.source === `judge:${judge}` && quality.class_of.get(r.request_id) === cls) verdicts.set(r.request_id, r.pass);
  }
  const calibration = usedCalibration(cls, judge!, quality, settings, cache);
  const named = `judge ${judge}`;
  if (calibration) {
    const k = calibration.cell.kappa.kappa;
    const where = calibration.scope === "class" ? `on class ${cls}` : "pooled over every class";
    if (k !== null && k < settings.min_judge_kappa) {
      refuse(
        `${named}'s Cohen's kappa against the reviewers' consensus ${where} is ${kappaText(calibration.cell)}, below ` +
          `the policy's min_judge_kappa ${settings.min_judge_kappa}`,
      );
    }
    if (k === null && source === "calibrated-judge") {
      refuse(
        `${named}'s kappa against the reviewers ${where} cannot be measured: ${calibration.cell.kappa.undefined_reason}`,
      );
    }
  }
  if (source === "judge") return { source, cls, judge: judge!, verdicts, calibration };
  if (!calibration) {
    refuse(`no item has both a settled human consensus and a verdict of ${named}: nothing to calibrate on`);
  }
  return { source, cls, judge: judge!, verdicts, calibration: calibration! };
}

/**
 * The calibration a class's judge uses: the class's own items when they hold at least `min_calibration_per_side`
 * items the reviewers passed and as many they failed, else the pool over every class; null when no item is
 * calibrated at all.
 */
function usedCalibration(
  cls: string,
  judge: string,
  quality: RunQuality,
  settings: QualitySettings,
  cache: CalibrationCache,
): UsedCalibration | null {
  let cal = cache.get(judge);
  if (!cal) {
    cal = judgeCalibration(quality, judge, { level: settings.level });
    cache.set(judge, cal);
  }
  const own = cal.by_class.find((c) => c.class === cls);
  const class_pass = own ? own.tp + own.fn : 0, class_fail = own ? own.tn + own.fp : 0;
  const min = settings.min_calibration_per_side;
  if (own && class_pass >= min && class_fail >= min) return { scope: "class", cell: own, class_pass, class_fail };
  if (!cal.pooled.n) return null;
  return { scope: "pooled", cell: cal.pooled, class_pass, class_fail };
}
