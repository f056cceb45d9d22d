import pl from "nodejs-polars";
import type { SloPolicy } from "../schema/slo.ts";
import { classify, FAILURE_ORDER, type FailureReason } from "./classify.ts";
import { buildDisclosure, type Disclosure } from "./disclosure.ts";
import type { LoadedRun } from "./loaded_run.ts";
import { resolveWindow } from "./policy.ts";

/** Counts and rates of one row of a goodput table. Rates with a zero denominator are null. */
export interface GoodputRow {
  offered: number;
  sent: number;
  completed: number;
  accepted: number;
  measurement_seconds: number | null;
  accepted_goodput: number | null;
  acceptance_rate: number | null;
  slo_miss_rate: number | null;
  /** Non-accepted requests by first failing reason (every reason, zeros included). */
  failures: Record<FailureReason, number>;
}

/** The result of {@linkcode goodput}. */
export interface GoodputResult {
  disclosure: Disclosure;
  overall: GoodputRow;
  by_class: (GoodputRow & { class: string })[];
  by_stage: (GoodputRow & { stage: string })[];
  by_class_stage: (GoodputRow & { class: string; stage: string })[];
}

const ratio = (a: number, b: number | null): number | null => (b ? a / b : null);

/** Aggregates classified requests by `keys` (at least one) into counts and failure counts. */
function aggregate(
  rows: pl.DataFrame,
  keys: string[],
): { key: Record<string, string>; counts: Record<string, number>; failures: Record<FailureReason, number> }[] {
  const counts = rows.groupBy(keys).agg(
    pl.col("request_id").count().cast(pl.Int64).alias("offered"),
    pl.col("sent").cast(pl.Int64).sum().alias("sent"),
    pl.col("completed").cast(pl.Int64).sum().alias("completed"),
    pl.col("accepted").cast(pl.Int64).sum().alias("accepted"),
  ).sort(keys);
  const fails = rows.filter(pl.col("reason").isNotNull())
    .groupBy([...keys, "reason"]).agg(pl.col("request_id").count().cast(pl.Int64).alias("n"));
  const failMap = new Map<string, Record<FailureReason, number>>();
  const keyOf = (r: Record<string, unknown>) => JSON.stringify(keys.map((c) => r[c]));
  for (const r of fails.toRecords()) {
    const key = keyOf(r);
    const f = failMap.get(key) ?? zeroFailures();
    f[r.reason as FailureReason] = Number(r.n);
    failMap.set(key, f);
  }
  return counts.toRecords().map((r) => ({
    key: Object.fromEntries(keys.map((c) => [c, String(r[c])])),
    counts: {
      offered: Number(r.offered),
      sent: Number(r.sent),
      completed: Number(r.completed),
      accepted: Number(r.accepted),
    },
    failures: failMap.get(keyOf(r)) ?? zeroFailures(),
  }));
}

type Group = ReturnType<typeof aggregate>[number];

/** Sums groups that share `keyOf` (counts and failures are additive). */
function rollUp(groups: Group[], keyOf: (g: Group) => string): Map<string, Pick<Group, "counts" | "failures">> {
  const out = new Map<string, Pick<Group, "counts" | "failures">>();
  for (const g of groups) {
    const k = keyOf(g);
    const acc = out.get(k) ?? { counts: { offered: 0, sent: 0, completed: 0, accepted: 0 }, failures: zeroFailures() };
    for (const [c, n] of Object.entries(g.counts)) acc.counts[c] = (acc.counts[c] ?? 0) + n;
    for (const f of FAILURE_ORDER) acc.failures[f] += g.failures[f];
    out.set(k, acc);
  }
  return out;
}

function zeroFailures(): Record<FailureReason, number> {
  return Object.fromEntries(FAILURE_ORDER.map((f) => [f, 0])) as Record<FailureReason, number>;
}

function makeRow(
  c: Record<string, number>,
  failures: Record<FailureReason, number>,
  seconds: number | null,
  denominator: SloPolicy["denominator"],
): GoodputRow {
  const offered = c.offered ?? 0, sent = c.sent ?? 0, completed = c.completed ?? 0, accepted = c.accepted ?? 0;
  const d = { offered, sent, completed }[denominator];
  return {
    offered,
    sent,
    completed,
    accepted,
    measurement_seconds: seconds,
    accepted_goodput: ratio(accepted, seconds),
    acceptance_rate: ratio(accepted, offered),
    slo_miss_rate: d ? (d - accepted) / d : null,
    failures,
  };
}

/**
 * Accepted goodput of a run under an SLO policy: overall, by class, by
 * stage and by class × stage, with the disclosure (denominator, window,
 * inclusion rules, SLO per class, TPOT definition, n). See
 * {@linkcode classify} for the per-request rules. Pure: the run's frames
 * are not changed. Stages of the window without requests get a zero row.
 *
 * @example Goodput of a loaded run (see the README for the definitions)
 * ```ts ignore
 * const result = goodput(await loadRun("out/run-1"), await loadSloPolicy("data/slo/design-v1.json"));
 * console.log(result.overall.accepted_goodput, result.disclosure.denominator);
 * ```
 */
export function goodput(run: LoadedRun, policy: SloPolicy): GoodputResult {
  const window = resolveWindow(run.manifest.stages, policy.window);
  const rows = classify(run, policy, window);
  const den = policy.denominator;
  const secs = (stage: string) => window.stage_seconds[stage] ?? null;

  // One pass over the requests (class × stage); the coarser tables are sums of its small result.
  const fine = aggregate(rows, ["class", "stage"]);
  const all = rollUp(fine, () => "all").get("all");
  const overall = makeRow(all?.counts ?? {}, all?.failures ?? zeroFailures(), window.measurement_seconds, den);
  const by_class = [...rollUp(fine, (g) => g.key.class!)].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([cls, g]) => ({ class: cls, ...makeRow(g.counts, g.failures, window.measurement_seconds, den) }));
  const stageGroups = rollUp(fine, (g) => g.key.stage!);
  const by_stage = [
    ...[...stageGroups].map(([stage, g]) => ({ stage, ...makeRow(g.counts, g.failures, secs(stage), den) })),
    ...window.stages.filter((s) => !stageGroups.has(s)).map((s) => ({
      stage: s,
      ...makeRow({}, zeroFailures(), secs(s), den),
    })),
  ];
  const order = new Map(run.manifest.stages.map((s, i) => [s.name, i]));
  by_stage.sort((a, b) => (order.get(a.stage) ?? Infinity) - (order.get(b.stage) ?? Infinity));
  const by_class_stage = fine.map((g) => ({
    class: g.key.class!,
    stage: g.key.stage!,
    ...makeRow(g.counts, g.failures, secs(g.key.stage!), den),
  }));

  const disclosure = buildDisclosure(run, policy, window, {
    overall: overall.offered,
    by_class: Object.fromEntries(by_class.map((r) => [r.class, r.offered])),
    by_stage: Object.fromEntries(by_stage.map((r) => [r.stage, r.offered])),
  });
  return { disclosure, overall, by_class, by_stage, by_class_stage };
}
