/**
 * The polars queries of the end-of-run rule (run_end_rule.ts): the requests
 * the stop cut off, and counts of requests by when they were scheduled.
 *
 * @module
 */
import pl from "nodejs-polars";
import { type CutOffRequest, STOPPED_KINDS } from "./run_end_rule.ts";

/** The requests of `lf` that match `where`. */
export async function count(lf: pl.LazyDataFrame, where: pl.Expr): Promise<number> {
  return Number((await lf.filter(where).select(pl.len().alias("n")).collect()).getColumn("n").get(0) ?? 0);
}

/** A request whose fate the stop cut off: aborted in flight by the stop, or restored from the schedule. */
const cutOff = pl.col("outcome").eq(pl.lit("aborted")).and(pl.col("error_kind").isIn([...STOPPED_KINDS]))
  .fillNull(false);

/** The requests of `rows` (restored ones included) the stop cut off, scheduled before the log's end. */
export async function cutOffRows(rows: pl.LazyDataFrame, logEnd: number): Promise<CutOffRequest[]> {
  const df = await rows.filter(cutOff.and(pl.col("scheduled_ms").lt(logEnd)))
    .select(pl.col("request_id"), pl.col("scheduled_ms").cast(pl.Float64), pl.col("class"), pl.col("service_mode"))
    .collect();
  const ids = df.getColumn("request_id").toArray() as string[];
  const at = df.getColumn("scheduled_ms").toArray() as number[];
  const cls = df.getColumn("class").toArray() as string[];
  const mode = df.getColumn("service_mode").toArray() as (string | null)[];
  return ids.map((request_id, i) => ({
    request_id,
    scheduled_ms: at[i]!,
    class: cls[i]!,
    service_mode: mode[i] ?? null,
  }));
}

/** The requests of `rows` scheduled in [from, to). */
export function countBetween(rows: pl.LazyDataFrame, from: number, to: number): Promise<number> {
  return count(rows, pl.col("scheduled_ms").gtEq(from).and(pl.col("scheduled_ms").lt(to)));
}
