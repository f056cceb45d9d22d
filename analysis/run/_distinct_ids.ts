import pl from "nodejs-polars";
import { InputError } from "../../schema/errors.ts";

/**
 * Refuses request ids found in more than one shard (or part of a production recording): one count-distinct over
 * the `request_id` column of every shard's requests log, streamed (the other
 * columns are not read); on failure, names up to five of them.
 */
export function checkDistinctIds(path: string, requests: pl.LazyDataFrame[], unit: "shard" | "part" = "shard"): void {
  if (requests.length < 2) return;
  const ids = pl.concat(requests.map((lf) => lf.select("request_id")), { how: "vertical" });
  const counts = ids.select(pl.len().alias("rows"), pl.col("request_id").nUnique().alias("distinct"))
    .collectSync({ engine: "streaming" }).toRecords()[0]!;
  const dupes = Number(counts.rows) - Number(counts.distinct);
  if (dupes === 0) return;
  // Only on failure: name some of them.
  const some = ids.groupBy("request_id").agg(pl.len().alias("n")).filter(pl.col("n").gt(1)).sort("request_id")
    .head(5).collectSync();
  const named = some.getColumn("request_id").toArray().join(", ");
  throw new InputError(`${path}: not one whole run`, [
    `${path}: ${dupes} request_id values appear in more than one ${unit} (e.g. ${named}): a request is counted once ` +
    `per row, so a ${unit}'s rows were copied into another`,
  ]);
}
