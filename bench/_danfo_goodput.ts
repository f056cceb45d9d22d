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
import type { LoadedRun } from "../analysis/run/loaded_run.ts";
import { GATE_ORDER } from "../analysis/goodput/classify.ts";
import type { GoodputRow } from "../analysis/goodput/goodput.ts";
import { classSlo, resolveWindow } from "../analysis/goodput/policy.ts";
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
  reqData.streamed = nan(r.streamed!);
  // Whether each gate applies (listed in applicable_gates; not recorded = applies), 1/0: danfo has no string split.
  const listed = (r.applicable_gates as (string | null)[]).map((x) => (x === null ? null : x.split(",")));
  for (const g of GATE_ORDER) reqData[`applies_${g}`] = listed.map((l) => (l === null || l.includes(g) ? 1 : 0));
  let req = new dfd.DataFrame(reqData);
  const sched = req.column("scheduled_ms");
  const inWindow = window.intervals
    .map(([lo, hi]) => sched.ge(lo).and(sched.lt(hi)))
    .reduce((x, y) => x.or(y));
  req = req.query(inWindow).resetIndex();

  // TPOT from the highest answered attempt of the last round, as analysis/goodput/classify.ts tpotFrame.
  let att = new dfd.DataFrame({
    request_id: a.request_id!,
    round: a.round!,
    attempt: a.attempt!,
    ft: nan(a.first_token_ms!),
    lt: nan(a.last_token_ms!),
    out: a.output_tokens!,
    itl: nan(a.itl_p50_ms!),
    st: nan(a.streamed!),
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
  att = att.query(att.column("attempt").eq(att.column("attempt_max")));
  // The attempt's streaming: recorded (1.1), else inferred (1.0) from a whole body at once (first = last token, no
  // inter-token gap, ≥ 2 tokens): then not streamed.
  const col = (name: string) => att.column(name);
  const wholeBody = col("ft").eq(col("lt")).and(col("itl").isNa()).and(col("out").ge(2));
  const attStreamed = col("st").eq(1).or(col("st").isNa().and(wholeBody.map((v) => (v ? 0 : 1)).eq(1)));
  const hasTpot = attStreamed.and(col("out").gt(1)).and(col("lt").gt(col("ft")));
  const tpot = col("lt").sub(col("ft")).div(col("out").sub(1)).values as number[];
  const hasTpotValues = hasTpot.values as boolean[];
  const tp = new dfd.DataFrame({
    request_id: col("request_id").values,
    tpot_ms: tpot.map((v, i) => (hasTpotValues[i] ? v : NaN)),
    att_streamed: (attStreamed.values as boolean[]).map((v) => (v ? 1 : 0)),
  });
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
  // Not streamed (recorded, else the answering attempt's): TTFT and TPOT do not exist and their limits do not apply.
  const hidden = s("streamed").eq(0).or(s("streamed").isNa().and(s("att_streamed").eq(0)));
  // Passing a limit, written positively: NaN compares false, so a missing latency fails a set limit; no limit
  // (Infinity) passes whatever the latency.
  const within = (v: Series, pick: (c: string) => number | undefined) => {
    const lim = limit(pick);
    return v.le(lim).or(lim.eq(Infinity));
  };
  const e2eOk = within(e2e, (c) => classSlo(policy, c).e2e_ms);
  const ttftOk = within(ttft, (c) => classSlo(policy, c).ttft_ms).or(hidden);
  const tpotOk = within(tpotMs, (c) => classSlo(policy, c).tpot_ms).or(tpotMs.isNa()).or(hidden);
  let gatesOk: Series | null = null;
  for (const g of GATE_ORDER) {
    const required = limit((c) => (classSlo(policy, c).gates.includes(g) ? 1 : 0));
    const ok = s(g).eq(1).or(required.eq(0)).or(s(`applies_${g}`).eq(0));
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
