import pl from "nodejs-polars";
import { InputError } from "../../schema/errors.ts";

/**
 * Refuses request ids found in more than one row of a run's requests logs — one folder's, or every shard's (or every
 * part's of a production recording): each offered request is one row, counted once per row, so a repeated id is a
 * request counted twice. One count-distinct over the `request_id` column, streamed (the other columns are not read);
 * on failure, names up to five of them.
 */
export function checkDistinctIds(path: string, requests: pl.LazyDataFrame[], unit: "shard" | "part" = "shard"): void {
  const ids = pl.concat(requests.map((lf) => lf.select("request_id")), { how: "vertical" });
  const counts = ids.select(pl.len().alias("rows"), pl.col("request_id").nUnique().alias("distinct"))
    .collectSync({ engine: "streaming" }).toRecords()[0]!;
  const dupes = Number(counts.rows) - Number(counts.distinct);
  if (dupes === 0) return;
  // Only on failure: name some of them.
  const some = ids.groupBy("request_id").agg(pl.len().alias("n")).filter(pl.col("n").gt(1)).sort("request_id")
    .head(5).collectSync();
  const named = some.getColumn("request_id").toArray().join(", ");
  const where = requests.length > 1
    ? `of the ${unit}s' requests logs (e.g. ${named}): a request is counted once per row, so rows were copied (a ` +
      `${unit}'s into another, or within one)`
    : `of the requests log (e.g. ${named}): each offered request is one row, counted once per row`;
  throw new InputError(`${path}: ${requests.length > 1 ? "not one whole run" : "a request in two rows"}`, [
    `${path}: ${dupes} request_id values appear in more than one row ${where}`,
  ]);
}
