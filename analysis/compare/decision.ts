/**
 * A ranked verdict with its uncertainty: routes ranked by cost per accepted
 * task (the ledger's) and by accepted goodput at the production limit (the
 * knee's level at or below the limit), each figure and each difference to the
 * best with a paired bootstrap interval, and one verdict line. The rules are
 * in docs/routes.md, "Ranking routes with their uncertainty".
 *
 * @module
 */
import { InputError } from "../../schema/errors.ts";
import type { SloPolicy } from "../../schema/slo.ts";
import { normalQuantile } from "../../lib/normal_quantile.ts";
import { type RequestCosts, requestCosts } from "../cost/request_costs.ts";
import type { LoadedRun } from "../run/loaded_run.ts";
import { runnerValue } from "../run/imported_run.ts";
import { policyForRuns } from "../goodput/policy.ts";
import { MIN_BLOCKS } from "../knee/block_bootstrap.ts";
import { routeOf } from "./compare.ts";
import { type ResampleOptions, resampleOptions } from "./decision_flags.ts";
import { type LevelAtLimit, levelAtLimit, levelRows, routeKnee } from "./decision_level.ts";
import { bootInterval, resampleRatios, type UnitLayout, unitLayout, type UnitRatio } from "./paired_resample.ts";
import type {
  DecisionOptions,
  DecisionResult,
  DecisionVerdict,
  RankDifference,
  RouteDecision,
} from "./decision_result.ts";
import { verdictLine } from "./format_decision.ts";

export type * from "./decision_result.ts";
export type { LevelAtLimit };

interface Prepared {
  run: LoadedRun;
  costs: RequestCosts;
  at: LevelAtLimit;
  levelIds: Set<string>;
}

/**
 * Ranks routes (one run each) by cost per accepted task and by accepted
 * goodput at the production limit, with paired bootstrap intervals (see the
 * module doc and docs/routes.md). Throws an {@linkcode InputError} for fewer
 * than two runs, bad options (named by flag), or runs whose schedules differ
 * when a paired interval is asked for (the default).
 */
export function decision(runs: LoadedRun[], policy: SloPolicy, options: DecisionOptions): DecisionResult {
  if (runs.length < 2) throw new InputError(`a ranked verdict needs at least two runs, got ${runs.length}`);
  policy = policyForRuns(policy, runs, "decision() policy");
  const o = resampleOptions(options);
  const schedule = o.paired ? sameSchedule(runs) : null;
  const prepared: Prepared[] = runs.map((run) => {
    const costs = requestCosts(run, policy, options.prices, { overheads: options.overheads ?? null });
    const given = options.knees?.find((k) => k.run_id === run.manifest.run_id);
    const { knee, limit, why } = given ? { ...given, why: null } : routeKnee(run, policy, options.headroom);
    const at = levelAtLimit(knee, limit, why);
    const levelIds = new Set(at.level ? levelRows(run, policy, at.level).request_id : []);
    return { run, costs, at, levelIds };
  });
  // One set of strata for all: the stages any route's cost window or limit level uses.
  const used = new Set<string>();
  for (const p of prepared) {
    p.costs.stage.forEach((s) => used.add(s));
    for (const part of p.at.level?.pooled.parts ?? []) used.add(part.stage);
  }
  const scheme = { unit: o.unit, block_units: o.unit === "blocks" ? o.blockSeconds : 1 };
  const layouts = prepared.map((p) => layoutOf(p.run, used, scheme));
  if (o.paired) checkPairs(prepared, layouts);
  const ratios = prepared.map((p, i) => ratiosOf(p, layouts[i]!));
  const groups = o.paired
    ? [{ strata: layouts[0]!.strata, ratios: ratios.flat() }]
    : ratios.map((r, i) => ({ strata: layouts[i]!.strata, ratios: r }));
  const flat = resampleRatios(groups, { resamples: o.resamples, seed: o.seed, block_units: scheme.block_units }).flat();
  const costDraws = prepared.map((_, i) => flat[2 * i]!);
  const goodDraws = prepared.map((_, i) => flat[2 * i + 1]!);

  const routes: RouteDecision[] = prepared.map((p, i) => {
    const l = p.costs.ledger.overall;
    const variable = p.costs.variable.reduce((a, b) => a + b, 0);
    const gp = p.at.level?.pooled.accepted_goodput ?? null;
    return {
      run_id: p.run.manifest.run_id,
      route: routeOf(p.run),
      offered: l.offered,
      accepted: l.accepted,
      cost: { total: l.total, fixed: p.costs.fixed, variable },
      cost_per_accepted: { point: l.cost_per_accepted_task, ...bootInterval(costDraws[i]!, o.level) },
      cost_rank: null,
      goodput_at_limit: { point: gp, ...bootInterval(goodDraws[i]!, o.level), at: p.at },
      goodput_rank: null,
      ledger_warnings: p.costs.ledger.pricing.warnings.length,
    };
  });
  const z = normalQuantile((1 + o.level) / 2);
  const cost_differences = rank(routes, costDraws, "cost", o.level, z);
  const goodput_differences = rank(routes, goodDraws, "goodput", o.level, z);
  const result: DecisionResult = {
    currency: options.prices.currency,
    slo: {
      label: options.sloLabel ?? "the SLO policy given",
      denominator: policy.denominator,
      window: prepared[0]!.costs.ledger.disclosure.window.description,
    },
    method: {
      paired: o.paired,
      schedule_sha256: schedule,
      unit: o.unit,
      block_seconds: o.unit === "blocks" ? o.blockSeconds : null,
      resamples: o.resamples,
      seed: o.seed,
      level: o.level,
      z,
      strata: layouts[0]!.strata,
      rules: methodRules(o, z),
    },
    routes,
    cost_differences,
    goodput_differences,
    verdict: { kind: "no_cost", best: null, tied: [], more_requests: null, text: "" },
    headroom: "",
    caveats: caveatsOf(routes, layouts, o),
  };
  result.verdict = verdictOf(result);
  result.headroom = headroomLine(result);
  return result;
}

/** The runs' common plan.schedule_sha256; an InputError naming every run's when they differ. */
function sameSchedule(runs: LoadedRun[]): string {
  const shas = runs.map((r) => runnerValue(r.manifest, (m) => m.plan.schedule_sha256));
  if (new Set(shas).size > 1) {
    throw new InputError(
      "a paired interval needs runs on the same schedule (run.json plan.schedule_sha256), and these differ " +
        "(pass --unpaired to resample each route on its own):",
      runs.map((r, i) => `${r.manifest.run_id} (${r.dir}): ${shas[i]}`),
    );
  }
  return shas[0]!;
}

function layoutOf(run: LoadedRun, used: Set<string>, scheme: Parameters<typeof unitLayout>[2]): UnitLayout {
  const stages = run.manifest.stages.filter((s) => used.has(s.name));
  const ids = run.requests.getColumn("request_id").toArray() as string[];
  const st = run.requests.getColumn("stage").toArray() as string[];
  const ms = run.requests.getColumn("scheduled_ms").toArray() as number[];
  const rows = ids.map((request_id, i) => ({ request_id, stage: st[i]!, scheduled_ms: Number(ms[i]) }))
    .filter((r) => used.has(r.stage));
  try {
    return unitLayout(stages, rows, scheme);
  } catch (e) {
    if (e instanceof RangeError) throw new InputError(`${run.dir}: requests.stage: ${e.message}`);
    throw e;
  }
}

/** Paired runs must cut the schedule alike: the same strata, and (requests) the same arrivals in each. */
function checkPairs(prepared: Prepared[], layouts: UnitLayout[]): void {
  const key = (l: UnitLayout) => JSON.stringify([l.strata, l.keys]);
  const first = key(layouts[0]!);
  const odd = layouts.map((l, i) => [l, i] as const).filter(([l]) => key(l) !== first);
  if (!odd.length) return;
  const name = (i: number) => prepared[i]!.run.manifest.run_id;
  throw new InputError(
    `runs ${name(0)} and ${odd.map(([, i]) => name(i)).join(", ")} share plan.schedule_sha256 but not their ` +
      "stages or arrivals (run.json stages, requests.request_id and scheduled_ms): no paired interval " +
      "(pass --unpaired to resample each route on its own)",
  );
}

/** Cost per accepted task and goodput at the limit as ratios over the layout's units. */
function ratiosOf(p: Prepared, layout: UnitLayout): [UnitRatio, UnitRatio] {
  const n = layout.total_units;
  const cost: UnitRatio = {
    num: new Float64Array(n),
    num_const: p.costs.fixed,
    den: new Float64Array(n),
    den_const: 0,
  };
  const unit = (id: string) => {
    const u = layout.unit_of.get(id);
    if (u === undefined) {
      throw new InputError(`${p.run.dir}: request ${id} has no stage of run.json stages (requests.stage)`);
    }
    return u;
  };
  p.costs.request_id.forEach((id, i) => {
    const u = unit(id);
    cost.num[u]! += p.costs.variable[i]!;
    cost.den![u]! += p.costs.accepted[i] ? 1 : 0;
  });
  const seconds = p.at.level?.pooled.seconds ?? 0;
  const good: UnitRatio = { num: new Float64Array(n), num_const: 0, den: null, den_const: seconds };
  for (const id of p.levelIds) good.num[unit(id)]! += 1;
  return [cost, good];
}

/** Ranks (1 = best) and the paired differences to the best; routes without a figure are unranked. */
function rank(
  routes: RouteDecision[],
  draws: Float64Array[],
  what: "cost" | "goodput",
  level: number,
  z: number,
): RankDifference[] {
  const fig = (r: RouteDecision) => (what === "cost" ? r.cost_per_accepted.point : r.goodput_at_limit.point);
  const order = routes.map((r, i) => [fig(r), i] as const).filter((x): x is [number, number] => x[0] !== null)
    .sort((a, b) => (what === "cost" ? a[0] - b[0] : b[0] - a[0]) || a[1] - b[1]);
  order.forEach(([, i], k) => {
    if (what === "cost") routes[i]!.cost_rank = k + 1;
    else routes[i]!.goodput_rank = k + 1;
  });
  if (!order.length) return [];
  const [bestPoint, b] = order[0]!;
  return order.slice(1).map(([point, i]) => {
    const d = what === "cost" ? point - bestPoint : bestPoint - point;
    const values = draws[i]!.map((v, k) => (what === "cost" ? v - draws[b]![k]! : draws[b]![k]! - v));
    const iv = bootInterval(values, level);
    // n: the requests the figure is measured on now (the window's; the limit level's for goodput).
    const n = what === "cost" ? routes[b]!.offered : routes[b]!.goodput_at_limit.at.level?.pooled.offered ?? 0;
    const needed = d > 0 && iv.sd !== null ? n * (z * iv.sd / d) ** 2 : null;
    return {
      run_id: routes[i]!.run_id,
      route: routes[i]!.route,
      versus: routes[b]!.run_id,
      point: d,
      ...iv,
      distinguishable: iv.lo !== null && iv.hi !== null && (iv.lo > 0 || iv.hi < 0),
      n,
      n_needed: needed,
      more_requests: needed === null ? null : Math.max(0, Math.ceil(needed) - n),
    };
  });
}

function verdictOf(r: DecisionResult): DecisionVerdict {
  const best = r.routes.find((x) => x.cost_rank === 1)?.run_id ?? null;
  const tiedDiffs = r.cost_differences.filter((d) => !d.distinguishable);
  const more = tiedDiffs.map((d) => d.more_requests).filter((m): m is number => m !== null);
  const v: DecisionVerdict = {
    kind: best === null ? "no_cost" : tiedDiffs.length ? "not_distinguishable" : "cheapest",
    best,
    tied: tiedDiffs.map((d) => d.run_id),
    more_requests: more.length === tiedDiffs.length && more.length ? Math.max(...more) : null,
    text: "",
  };
  v.text = verdictLine(r, v);
  return v;
}

/** Whether the cheapest route is the one with the most accepted goodput at its production limit. */
function headroomLine(r: DecisionResult): string {
  const cheap = r.routes.find((x) => x.cost_rank === 1);
  const roomy = r.routes.find((x) => x.goodput_rank === 1);
  if (!cheap || !roomy) return "headroom: not compared (no cost or no goodput at the limit for some route)";
  if (cheap === roomy) {
    return `headroom: the cheapest route (${cheap.route}) is also the one with the most accepted goodput at its ` +
      "production limit";
  }
  const d = r.goodput_differences.find((x) => x.run_id === cheap.run_id);
  const sure = d && !d.distinguishable ? " (not distinguishable at this sample size)" : "";
  return `headroom: the cheapest route (${cheap.route}) is not the one with the most accepted goodput at its ` +
    `production limit: ${roomy.route} is${sure}`;
}

function methodRules(o: Required<ResampleOptions>, z: number): string[] {
  const what = o.unit === "blocks"
    ? `moving blocks of ${o.blockSeconds} s of scheduled time (one-second bins, block starts uniform within each ` +
      "stage, each stage keeping its length)"
    : "arrivals (each request of a stage with its schedule position, drawn with replacement within its stage)";
  return [
    `resampled: ${what}; ${
      o.paired
        ? "paired: the same draws for every route (same schedule)"
        : "unpaired: each route its own draws (seed + route index)"
    }; ${o.resamples} resamples, mulberry32 seed ${o.seed}`,
    `intervals: two-sided ${o.level * 100} % percentile intervals of the resampled figure, of each route and of ` +
    "each difference to the best route",
    "cost per accepted task in a resample = (fixed cost + Σ variable cost of the drawn requests) / accepted drawn " +
    "requests; fixed and variable as the ledger splits them (analysis/cost/request_costs.ts)",
    "goodput at the limit in a resample = accepted drawn requests of the limit's level / the level's seconds",
    `not distinguishable: the interval of the difference contains 0; requests needed to separate them at the ` +
    `observed spread n_needed ≈ n × (z · sd_diff / observed difference)², z = ${z.toFixed(4)}, n the requests ` +
    "measured now (the window's for cost, the limit level's for goodput), sd_diff the resampled difference's standard deviation (the spread shrinking as 1/√n, a longer " +
    "run at the same rates)",
  ];
}

function caveatsOf(routes: RouteDecision[], layouts: UnitLayout[], o: Required<ResampleOptions>): string[] {
  const out: string[] = [];
  for (const r of routes) {
    const note = r.goodput_at_limit.at.note;
    if (note) out.push(`${r.route}: goodput at the limit: ${note}`);
    for (
      const [name, e] of [["cost per accepted task", r.cost_per_accepted], ["goodput", r.goodput_at_limit]] as const
    ) {
      if (e.undefined && e.point !== null) {
        out.push(`${r.route}: ${e.undefined} of ${o.resamples} resamples had no ${name} (left out)`);
      }
    }
    if (r.ledger_warnings) {
      out.push(`${r.route}: the ledger has ${r.ledger_warnings} warning(s) (npx deno task ledger RUN lists them)`);
    }
  }
  // A stage of n units offers n − L + 1 distinct blocks to draw from.
  const L = o.unit === "blocks" ? o.blockSeconds : 1;
  for (const s of layouts[0]!.strata.filter((s) => s.units - Math.min(L, s.units) + 1 < MIN_BLOCKS)) {
    out.push(
      `stage ${s.stage} has ${s.units} ${o.unit === "blocks" ? "one-second bins" : "requests"}: fewer than ` +
        `${MIN_BLOCKS} distinct blocks to draw from, its part of every interval may be too narrow`,
    );
  }
  return out;
}
