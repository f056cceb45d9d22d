import pl from "nodejs-polars";
import type { TableName } from "../../schema/events.ts";
import type { OpenedRun } from "./_opened_run.ts";
import { attemptTwiceError, orphansError, orphansProblem, orphansText } from "./_row_join_text.ts";

/** The tables whose rows belong to one request of the requests log, by `request_id`. */
const CHILD_TABLES = ["attempts", "tools", "phases"] as const;
export type ChildTable = (typeof CHILD_TABLES)[number];

const count = (lf: pl.LazyDataFrame): number =>
  Number(lf.select(pl.len().alias("n")).collectSync({ engine: "streaming" }).getColumn("n").get(0));

/** Up to five rows of `columns` of `lf`, least first, as text (one column: its values; more: JSON arrays). */
function examples(lf: pl.LazyDataFrame, columns: string[]): string {
  const rows = lf.select(...columns).unique().sort(columns).head(5).collectSync().toRecords();
  return rows.map((r) => columns.length === 1 ? String(r[columns[0]!]) : JSON.stringify(columns.map((c) => r[c])))
    .join(", ");
}

const stack = (frames: pl.LazyDataFrame[]) => frames.length === 1 ? frames[0]! : pl.concat(frames, { how: "vertical" });

/**
 * The joins every figure relies on, checked after the row checks (a killed shard's requests already restored):
 *
 * - **An attempt in two rows.** An attempt is one row, keyed by (`request_id`, `round`, `attempt`); a key in two rows
 *   (of one folder, or of two) is an attempt counted — and priced — twice. Refused, naming up to five keys.
 * - **Rows without their request.** Each attempts, tools and phases row names a `request_id` of its shard's requests;
 *   one that names none belongs to no request, and the figures would disagree about it (the ledger prices attempts of
 *   its window's requests only; the retry analyses and the plots read the table itself). Refused, naming the file,
 *   the count and up to five ids — unless its folder is `lenient`, where it is a warning saying the same, and the
 *   caller reads the table without them (the tables returned; {@linkcode withoutStrays}), so that no figure counts
 *   them.
 *
 * Checked shard by shard (a shard's rows belong to its own requests: goodput joins them shard by shard, and memory
 * follows the largest shard), a production recording's parts together (a task's rows may span two). Two streamed
 * queries per shard reading the key columns alone: the attempt keys grouped, and the attempts, tools and phases ids
 * against the request ids in one anti-join (counted per file; the examples are looked up only for a file that has
 * such rows).
 */
export function checkRowJoins(
  path: string,
  tables: Record<TableName, pl.LazyDataFrame[]>,
  opened: Pick<OpenedRun, "shards" | "parts" | "lenient" | "warning">,
): StrayRows[] {
  const fileOf = (t: TableName, k: number) => opened.shards[k]!.find((x) => x.table === t)!.file;
  const folders = opened.shards.map((_, k) => k);
  // A shard's attempts, tools and phases belong to its own requests (goodput joins them shard by shard), so each shard
  // is checked alone and memory follows the largest shard; a recording's task may span parts, so its parts together.
  const groups = opened.parts !== null || folders.length === 1 ? [folders] : folders.map((k) => [k]);
  const keys = ["request_id", "round", "attempt"];
  const problems: string[] = [], stray: StrayRows[] = [];
  for (const group of groups) {
    const one = group.length === 1;
    const twice = stack(group.map((k) => tables.attempts[k]!.select(...keys))).groupBy(keys)
      .agg(pl.len().alias("n")).filter(pl.col("n").gt(1));
    const n = count(twice);
    if (n > 0) {
      const where = folders.length === 1
        ? "its attempts log"
        : one
        ? fileOf("attempts", group[0]!)
        : "its parts' attempts logs";
      throw attemptTwiceError(path, n, where, examples(twice, keys));
    }
    const children: { k: number; table: ChildTable }[] = [];
    for (const k of group) for (const table of CHILD_TABLES) children.push({ k, table });
    const requests = stack(group.map((k) => tables.requests[k]!.select("request_id")));
    const ids = stack(
      children.map((c, i) =>
        tables[c.table][c.k]!.select(pl.col("request_id"), pl.lit(i).cast(pl.Int32).alias("_child"))
      ),
    );
    const orphans = ids.join(requests, { on: "request_id", how: "anti" });
    const found = orphans.groupBy("_child").agg(pl.len().alias("n")).sort("_child")
      .collectSync({ engine: "streaming" }).toRecords();
    const requestsWhere = one ? fileOf("requests", group[0]!) : "its parts' requests logs";
    for (const r of found) {
      const i = Number(r._child), c = children[i]!;
      const some = examples(orphans.filter(pl.col("_child").eq(i)), ["request_id"]);
      const text = orphansText(fileOf(c.table, c.k), Number(r.n), c.table, requestsWhere, some);
      if (opened.lenient(c.k)) {
        opened.warning(`${text}: read without them, so no figure counts them (${whyLenient(c.table)})`);
        stray.push({ ...c, requests: group });
      } else problems.push(orphansProblem(text));
    }
  }
  if (problems.length) throw orphansError(path, problems);
  return stray;
}

/** A folder's table with rows whose request the run does not hold (a lenient folder's, warned of). */
export interface StrayRows {
  k: number;
  table: ChildTable;
  /** The folders whose requests its rows were checked against (its own; a recording's every part). */
  requests: number[];
}

/**
 * `frame` without its rows whose request no row of `requests` (the run's request ids) holds: what the readers keep of
 * a {@linkcode StrayRows} table.
 */
export function withoutStrays<T extends pl.DataFrame | pl.LazyDataFrame>(frame: T, requests: T): T {
  // Both are one kind: a frame and its requests, or a scan and its requests.
  return (frame as pl.DataFrame).join(requests as pl.DataFrame, { on: "request_id", how: "semi" }) as T;
}

function whyLenient(table: ChildTable): string {
  return table === "tools"
    ? "a request in flight when the log ended has its tool steps logged before its row"
    : "the log ended, or lost rows, before the request's own row was written";
}
