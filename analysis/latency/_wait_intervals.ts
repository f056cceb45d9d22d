/**
 * Where each task's wait went, per task, in one polars query: every measured interval of the task (phases, tool
 * steps, model calls, the send lag) clipped to its wait [scheduled_ms, completed_ms], and each instant of the wait
 * charged to exactly one segment: the first, in the charging order, of the segments whose intervals cover it (a sweep
 * over the intervals' ends, one running count per segment); the rest is `other`.
 *
 * @module
 */
import pl from "nodejs-polars";

/** The segments of a task's wait, in display order. */
export const WAIT_SEGMENTS = ["page", "network", "queue", "retrieval", "model", "tools", "render", "other"] as const;
export type WaitSegment = typeof WAIT_SEGMENTS[number];

/**
 * The charging order: an instant covered by several segments' intervals is charged to the first of these. The send
 * lag (a task with no phase row at all) is charged after every measured segment, so the time that queue, retrieval,
 * tools or the model account for before the send stays theirs; `other` (the wait itself) is last.
 */
export const CHARGE_ORDER = [
  { source: "page_phase", segment: "page", what: "phase page" },
  { source: "network", segment: "network", what: "phases network_up, network_down" },
  { source: "queue", segment: "queue", what: "phases queue" },
  { source: "retrieval", segment: "retrieval", what: "tools rows tool = retrieval" },
  { source: "tools", segment: "tools", what: "tools rows of every other tool" },
  { source: "model", segment: "model", what: "attempts sent_ms → end" },
  { source: "render", segment: "render", what: "phase render" },
  { source: "send_lag", segment: "page", what: "send lag, scheduled_ms → first_sent_ms (a task with no phase row)" },
  { source: "wait", segment: "other", what: "the wait, scheduled_ms → completed_ms" },
] as const satisfies readonly { source: string; segment: WaitSegment; what: string }[];

type Source = typeof CHARGE_ORDER[number]["source"];
/** The charge order of an interval source. */
const order = (source: Source): number => CHARGE_ORDER.findIndex((c) => c.source === source);

const F64 = pl.Float64;
const K = CHARGE_ORDER.length;

/** An attempt's end: completed_ms, else the latest time it recorded (a failed call has no completed_ms). */
const attemptEnd = pl.col("completed_ms").cast(F64)
  .fillNull(pl.col("last_token_ms").cast(F64))
  .fillNull(pl.col("first_token_ms").cast(F64))
  .fillNull(pl.col("headers_ms").cast(F64));

/** `(_i, k, a, b)`: interval [a, b) of charge order k of task `_i` (`tasks`' row index), clipped to its wait. */
function intervals(
  tasks: pl.LazyDataFrame,
  tables: { phases: pl.LazyDataFrame; tools: pl.LazyDataFrame; attempts: pl.LazyDataFrame },
): pl.LazyDataFrame {
  const phase = (names: string[], source: Source) =>
    tables.phases.filter(pl.col("phase").isIn(names)).select(
      "request_id",
      pl.lit(order(source)).alias("k"),
      pl.col("started_ms").cast(F64).alias("a"),
      pl.col("ended_ms").cast(F64).alias("b"),
    );
  const tool = (retrieval: boolean) =>
    tables.tools.filter(retrieval ? pl.col("tool").eq(pl.lit("retrieval")) : pl.col("tool").neq(pl.lit("retrieval")))
      .select(
        "request_id",
        pl.lit(order(retrieval ? "retrieval" : "tools")).alias("k"),
        pl.col("started_ms").cast(F64).alias("a"),
        pl.col("ended_ms").cast(F64).alias("b"),
      );
  const withPhases = tables.phases.select("request_id").unique();
  const sendLag = tasks.join(withPhases, { on: "request_id", how: "anti" }).select(
    "request_id",
    pl.lit(order("send_lag")).alias("k"),
    pl.col("scheduled_ms").alias("a"),
    pl.col("first_sent_ms").cast(F64).alias("b"),
  );
  const wait = tasks.select(
    "request_id",
    pl.lit(order("wait")).alias("k"),
    pl.col("scheduled_ms").alias("a"),
    pl.col("done_ms").alias("b"),
  );
  const all = pl.concat(
    [
      phase(["page"], "page_phase"),
      phase(["network_up", "network_down"], "network"),
      phase(["queue"], "queue"),
      tool(true),
      tool(false),
      tables.attempts.select(
        "request_id",
        pl.lit(order("model")).alias("k"),
        pl.col("sent_ms").cast(F64).alias("a"),
        attemptEnd.alias("b"),
      ),
      phase(["render"], "render"),
      sendLag,
      wait,
    ].map((df) => df.select(pl.col("request_id"), pl.col("k").cast(pl.Int32), pl.col("a"), pl.col("b"))),
    { how: "vertical" },
  );
  // Clipped to the task's wait; an interval with no length inside it (or a missing end) covers nothing.
  const w = tasks.select("_i", "request_id", pl.col("scheduled_ms").alias("s"), pl.col("done_ms").alias("e"));
  return all.join(w, { on: "request_id", how: "inner" })
    .select(
      "_i",
      "k",
      pl.maxHorizontal([pl.col("a"), pl.col("s")]).alias("a"),
      pl.minHorizontal([pl.col("b"), pl.col("e")]).alias("b"),
    )
    .filter(pl.col("a").isNotNull().and(pl.col("b").isNotNull()).and(pl.col("b").gt(pl.col("a"))));
}

/**
 * The milliseconds of each segment in each task's wait (`<segment>_ms` columns, keyed by `request_id`): every
 * elementary span between two consecutive interval ends of a task is charged to the first charge order whose
 * intervals cover it. `tasks` holds `request_id`, `scheduled_ms`, `first_sent_ms` and `done_ms` (the wait's end).
 *
 * The sweep: each interval is a +1 at its start and a −1 at its end in its order's column; the events sorted by task
 * and time, a running sum per column is the number of that order's intervals covering the span up to the next event.
 * Every task's events sum to 0 in every column, so one running sum over all tasks is each task's own (no window per
 * task); the span after a task's last event, to the next task's first, is covered by nothing and charged to none.
 * Events at one instant give spans of no length, whatever their order.
 */
export function chargeWaits(
  tasks: pl.DataFrame,
  tables: { phases: pl.DataFrame; tools: pl.DataFrame; attempts: pl.DataFrame },
): pl.DataFrame {
  const indexed = tasks.withRowIndex("_i");
  // One lazy query from the tables to the sums: polars plans the joins, the sort and the sweep together.
  const iv = intervals(indexed.lazy(), {
    phases: tables.phases.lazy(),
    tools: tables.tools.lazy(),
    attempts: tables.attempts.lazy(),
  });
  const ends = (col: string, sign: number) => iv.select("_i", pl.col(col).alias("t"), "k", pl.lit(sign).alias("d"));
  let charged = pl.when(pl.col("c0").gt(0)).then(pl.lit(0));
  for (let k = 1; k < K; k++) charged = charged.when(pl.col(`c${k}`).gt(0)).then(pl.lit(k));
  // Sorted narrow (task, time, order, ±1); the per-order columns are made after the sort, for the running sums.
  const spans = pl.concat([ends("a", 1), ends("b", -1)], { how: "vertical" })
    .sort(["_i", "t"])
    .select(
      "_i",
      pl.col("t").shift(-1).sub(pl.col("t")).alias("len"),
      ...Array.from(
        { length: K },
        (_, k) => pl.when(pl.col("k").eq(k)).then(pl.col("d")).otherwise(pl.lit(0)).cumSum().alias(`c${k}`),
      ),
    )
    .select("_i", "len", charged.otherwise(pl.lit(null)).alias("charged"))
    .filter(pl.col("charged").isNotNull().and(pl.col("len").gt(0)));
  const segmentSum = (segment: WaitSegment) => {
    const ks = CHARGE_ORDER.flatMap((c, k) => (c.segment === segment ? [k] : []));
    return pl.when(pl.col("charged").isIn(ks)).then(pl.col("len")).otherwise(pl.lit(0)).sum().alias(`${segment}_ms`);
  };
  const sums = spans.groupBy("_i").agg(...WAIT_SEGMENTS.map(segmentSum)).collectSync();
  // A task whose wait has no length has no span: every segment 0.
  return indexed.select("_i", "request_id").join(sums, { on: "_i", how: "left" }).sort("_i")
    .select("request_id", ...WAIT_SEGMENTS.map((s) => pl.col(`${s}_ms`).fillNull(0).cast(F64)));
}

/**
 * Which segments each task measured (`has_<segment>` columns, keyed by `request_id`): page when it has a page
 * phase, or no phase row at all and a send time (the send lag stands in); network, queue and render when it has
 * such a phase; retrieval, model, tools and other always (their tables are in every log: no row is 0 ms).
 */
export function measuredSegments(tasks: pl.DataFrame, phases: pl.DataFrame): pl.DataFrame {
  const has = (names: string[]) => pl.col("phase").isIn(names).any();
  const own = phases.groupBy("request_id").agg(
    pl.len().alias("_rows"),
    has(["page"]).alias("_page"),
    has(["network_up", "network_down"]).alias("has_network"),
    has(["queue"]).alias("has_queue"),
    has(["render"]).alias("has_render"),
  );
  return tasks.select("request_id", "first_sent_ms").join(own, { on: "request_id", how: "left" }).select(
    "request_id",
    pl.col("_page").fillNull(false).or(pl.col("_rows").isNull().and(pl.col("first_sent_ms").isNotNull()))
      .alias("has_page"),
    pl.col("has_network").fillNull(false),
    pl.col("has_queue").fillNull(false),
    pl.lit(true).alias("has_retrieval"),
    pl.lit(true).alias("has_model"),
    pl.lit(true).alias("has_tools"),
    pl.col("has_render").fillNull(false),
    pl.lit(true).alias("has_other"),
  );
}
