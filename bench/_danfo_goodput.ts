/**
 * The analysis benchmark's danfojs implementation: goodput by class
 * (offered, sent, completed, accepted and the rates, without the failure
 * breakdown) and each class's e2e SLO curve, with danfo frames, masks,
 * merges and group-bys. danfo has no nullable boolean and treats `null` as 0
 * in arithmetic, so missing numbers are passed as NaN and gates as 1/0/NaN.
 *
 * @module
 */
import type * as Danfo from "danfojs";
import type { LoadedRun } from "../analysis/loaded_run.ts";
import { GATE_ORDER } from "../analysis/classify.ts";
import type { GoodputRow } from "../analysis/goodput.ts";
import { classSlo, resolveWindow } from "../analysis/policy.ts";
import type { SloPolicy } from "../schema/slo.ts";
import { type Columns, countCurve, curveLimits } from "./_plain_goodput.ts";

type Dfd = typeof Danfo;
type Series = Danfo.Series;

/** The danfo result: by-class rows (failures left out) and the accepted counts of each class's curve. */
export interface DanfoResult {
  by_class: (Omit<GoodputRow, "failures"> & { class: string })[];
  curves: Record<string, { limit_ms: Float64Array; accepted: Float64Array }>;
}

// danfo compares string scalars with eq/ne at runtime; its type declarations only list numbers.
const eqStr = (s: Series, v: string) => s.eq(v as unknown as number);
const neStr = (s: Series, v: string) => s.ne(v as unknown as number);
/** Not NaN: NaN is the only value not equal to itself (danfo's boolean Series have no negation). */
const notNa = (s: Series) => s.eq(s);

const nan = (v: (string | number | boolean | null)[]) => v.map((x) => (x === null ? NaN : Number(x)));

/** Goodput by class and the e2e curves with danfo (`dfd` is the imported module, timed apart by the caller). */
export function danfoGoodput(dfd: Dfd, run: LoadedRun, cols: Columns, policy: SloPolicy): DanfoResult {
  const window = resolveWindow(run.manifest.stages, policy.window);
  const { req: r, att: a } = cols;
  const reqData: Record<string, unknown[]> = {
    request_id: r.request_id!,
    class: r.class!,
    outcome: r.outcome!,
    scheduled_ms: r.scheduled_ms!,
    first_token_ms: nan(r.first_token_ms!),
    completed_ms: nan(r.completed_ms!),
  };
  for (const g of GATE_ORDER) reqData[g] = nan(r[g]!);
  let req = new dfd.DataFrame(reqData);
  const sched = req.column("scheduled_ms");
  const inWindow = window.intervals
    .map(([lo, hi]) => sched.ge(lo).and(sched.lt(hi)))
    .reduce((x, y) => x.or(y));
  req = req.query(inWindow).resetIndex();

  // TPOT from the highest answered attempt of the last round, as analysis/classify.ts tpotFrame.
  let att = new dfd.DataFrame({
    request_id: a.request_id!,
    round: a.round!,
    attempt: a.attempt!,
    ft: nan(a.first_token_ms!),
    lt: nan(a.last_token_ms!),
    out: a.output_tokens!,
  });
  const lastRound = att.groupby(["request_id"]).col(["round"]).max();
  att = dfd.merge({ left: att, right: lastRound, on: ["request_id"], how: "inner" });
  att = att.query(
    att.column("round").eq(att.column("round_max"))
      .and(notNa(att.column("ft")))
      .and(notNa(att.column("lt"))),
  );
  const lastAttempt = att.groupby(["request_id"]).col(["attempt"]).max();
  att = dfd.merge({ left: att, right: lastAttempt, on: ["request_id"], how: "inner" });
  att = att.query(att.column("attempt").eq(att.column("attempt_max")).and(att.column("out").gt(1)));
  const tpot = att.column("lt").sub(att.column("ft")).div(att.column("out").sub(1));
  const tp = new dfd.DataFrame({ request_id: att.column("request_id").values, tpot_ms: tpot.values });
  req = dfd.merge({ left: req, right: tp, on: ["request_id"], how: "left" });

  const cls = req.column("class");
  const limit = (pick: (c: string) => number | undefined) => {
    const m: Record<string, number> = {};
    for (const c of cls.unique().values as string[]) m[c] = pick(c) ?? Infinity;
    return cls.map(m);
  };
  const s = (name: string) => req.column(name);
  const e2e = s("completed_ms").sub(s("scheduled_ms"));
  const ttft = s("first_token_ms").sub(s("scheduled_ms"));
  const tpotMs = s("tpot_ms");
  // Passing a limit, written positively: NaN compares false, so a missing latency fails it.
  const e2eOk = e2e.le(limit((c) => classSlo(policy, c).e2e_ms));
  const ttftOk = ttft.le(limit((c) => classSlo(policy, c).ttft_ms));
  const tpotOk = tpotMs.le(limit((c) => classSlo(policy, c).tpot_ms)).or(tpotMs.isNa());
  let gatesOk: Series | null = null;
  for (const g of GATE_ORDER) {
    const required = limit((c) => (classSlo(policy, c).gates.includes(g) ? 1 : 0));
    const ok = s(g).eq(1).or(required.eq(0));
    gatesOk = gatesOk ? gatesOk.and(ok) : ok;
  }
  const outcome = s("outcome");
  const completed = eqStr(outcome, "ok");
  const sent = neStr(outcome, "not_sent").and(neStr(outcome, "client_shed"));
  const eligible = completed.and(gatesOk!).and(notNa(e2e));
  const accepted = eligible.and(e2eOk).and(ttftOk).and(tpotOk);

  // asType("int32") of a boolean Series gives NaN in danfo 1.1.2, so flags become 0/1 through map.
  const flag = (b: Series) => b.map((v) => (v ? 1 : 0)).values;
  const flags = new dfd.DataFrame({
    class: cls.values,
    one: cls.map(() => 1).values,
    sent: flag(sent),
    completed: flag(completed),
    accepted: flag(accepted),
  });
  const sums = flags.groupby(["class"]).col(["one", "sent", "completed", "accepted"]).sum();
  const secs = window.measurement_seconds;
  const by_class = (dfd.toJSON(sums) as Record<string, number | string>[]).map((row) => {
    const [offered, nSent, nCompleted, nAccepted] = ["one_sum", "sent_sum", "completed_sum", "accepted_sum"]
      .map((k) => Number(row[k]));
    const d = { offered: offered!, sent: nSent!, completed: nCompleted! }[policy.denominator];
    return {
      class: String(row.class),
      offered: offered!,
      sent: nSent!,
      completed: nCompleted!,
      accepted: nAccepted!,
      measurement_seconds: secs,
      accepted_goodput: secs ? nAccepted! / secs : null,
      acceptance_rate: offered ? nAccepted! / offered : null,
      slo_miss_rate: d ? (d - nAccepted!) / d : null,
    };
  }).sort((x, y) => (x.class < y.class ? -1 : x.class > y.class ? 1 : 0));

  // The curve: eligible e2e of the class sorted by danfo, then counted by binary search per limit.
  const withE2e = new dfd.DataFrame({ class: cls.values, e2e: e2e.values, eligible: eligible.values });
  const curves: DanfoResult["curves"] = {};
  for (const row of by_class) {
    const sel = withE2e.query(withE2e.column("eligible").and(eqStr(withE2e.column("class"), row.class)));
    const sorted = sel.shape[0] ? Float64Array.from(sel.column("e2e").sortValues().values as number[]) : [];
    const limit_ms = curveLimits(policy, row.class);
    curves[row.class] = { limit_ms, accepted: countCurve(Float64Array.from(sorted), limit_ms) };
  }
  return { by_class, curves };
}
