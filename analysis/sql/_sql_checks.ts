/**
 * The checks of a run's Parquet files before the SQL path counts anything,
 * the same the polars reader makes (analysis/run/_open_run.ts,
 * _row_checks.ts, _distinct_ids.ts), run by DuckDB: the columns of each
 * source against the log's contract minor version; never-null columns hold
 * no null, `run_id` is run.json's, outcomes are the contract's; no request id
 * in two shards; no attempt in two rows nor one without its request; and one
 * precondition of the SQL itself (attempt numbers the final-attempt key can
 * order).
 *
 * @module
 */
import { InputError } from "../../schema/errors.ts";
import { columnsAt, OUTCOMES } from "../../schema/events.ts";
import { numericBounds, requiredColumns, valueProblem } from "../../schema/column_kinds.ts";
import { TIME_ORDER, timeOrderProblem } from "../../schema/time_order.ts";
import { MAX_ATTEMPT } from "./classify_sql.ts";
import type { SqlEngine } from "./duckdb.ts";
import { sqlString } from "./_sql_text.ts";
import { attemptTwiceError, orphansError, orphansProblem, orphansText } from "../run/_row_join_text.ts";
import { type SqlTable, tableColumns, type TableSource } from "./views.ts";

/** `read_parquet` of one source, as the checks read it (with the file name of each row). */
const readSource = (s: Pick<TableSource, "path" | "hive">) =>
  `read_parquet(${sqlString(s.path)}, hive_partitioning = ${s.hive}, union_by_name = true, filename = true)`;

/**
 * The contract's columns a source holds, checked against the log's contract
 * minor version: a missing column or an unknown one is a problem naming the
 * source (partition keys of a hive layout that are not contract columns are
 * ignored: they only place the files).
 */
export async function sourceColumns(
  engine: SqlEngine,
  table: SqlTable,
  source: Pick<TableSource, "path" | "hive">,
  minor: number,
  hiveKeys: readonly string[],
): Promise<{ present: string[]; problems: string[] }> {
  let names: string[];
  try {
    const rows = await engine.query(`DESCRIBE SELECT * FROM ${readSource(source)}`);
    names = rows.map((r) => String(r.column_name)).filter((c) => c !== "filename");
  } catch (e) {
    throw new InputError(`${source.path}: cannot read ${table} log: ${(e as Error).message}`, [], { cause: e });
  }
  const expected = columnsAt(table, minor);
  const all = tableColumns(table);
  const missing = expected.filter((c) => !names.includes(c));
  const unknown = names.filter((c) => !expected.includes(c) && !(hiveKeys.includes(c) && !all.includes(c)));
  const problems = [
    ...(missing.length ? [`${source.path}: missing columns: ${missing.join(", ")}`] : []),
    ...(unknown.length ? [`${source.path}: unknown columns: ${unknown.join(", ")}`] : []),
  ];
  return { present: names.filter((c) => all.includes(c)), problems };
}

/**
 * The row checks of one source, one aggregate query reading only the checked
 * columns: nulls in never-null columns, rows of another run, unknown
 * outcomes (requests), attempt numbers the SQL cannot order (attempts), numbers
 * not finite or below their contract minimum, times out of their order (schema/time_order.ts; the example is the least request
 * id of the rows). Each problem names the file.
 */
export async function checkSourceRows(engine: SqlEngine, table: SqlTable, source: TableSource): Promise<string[]> {
  const required = requiredColumns(table).filter((c) => source.present.includes(c));
  const known = `outcome IN (${OUTCOMES.map(sqlString).join(", ")})`;
  // Every number finite and none below its contract minimum (schema/column_kinds.ts), then the order of each row's
  // times (schema/time_order.ts), as the polars reader: each rule the rows it refuses, counted in the one query; the
  // example (the least request id of those rows) is looked up only for a rule that found any.
  const rules: { bad: string; problem: (file: string, n: number, example: unknown) => string }[] = [];
  for (const b of numericBounds(table).filter((b) => source.present.includes(b.name))) {
    if (b.kind === "float") {
      const what = "that is not finite (NaN or infinite)";
      rules.push({
        bad: `isnan(${b.name}) OR isinf(${b.name})`,
        problem: (file, n, ex) => valueProblem(file, b.name, n, what, "request_id", ex),
      });
    }
    const min = b.min;
    if (min !== null) {
      rules.push({
        bad: `${b.name} < ${min}`,
        problem: (file, n, ex) => valueProblem(file, b.name, n, `below ${min}`, "request_id", ex),
      });
    }
  }
  for (const o of TIME_ORDER[table] ?? []) {
    rules.push({ bad: `${o.later} < ${o.earlier}`, problem: (file, n, ex) => timeOrderProblem(file, o, n, ex) });
  }
  const measures = [
    ...required.map((c) => `SUM(CASE WHEN ${c} IS NULL THEN 1 ELSE 0 END) AS "${c}"`),
    ...(source.present.includes("run_id")
      ? [`SUM(CASE WHEN run_id <> ${sqlString(source.run_id)} THEN 1 ELSE 0 END) AS other_run_ids`]
      : []),
    ...(table === "requests" ? [`SUM(CASE WHEN NOT ${known} THEN 1 ELSE 0 END) AS unknown_outcomes`] : []),
    ...(table === "attempts" ? [`SUM(CASE WHEN attempt > ${MAX_ATTEMPT} THEN 1 ELSE 0 END) AS big_attempts`] : []),
    ...rules.map((rule, i) => `SUM(CASE WHEN ${rule.bad} THEN 1 ELSE 0 END) AS rule_${i}`),
  ];
  const rows = await engine.query(
    `SELECT filename, ${measures.join(", ")} FROM ${readSource(source)} GROUP BY filename`,
  );
  const problems: string[] = [];
  for (const r of rows) {
    const file = String(r.filename);
    for (const c of required) {
      const n = Number(r[c] ?? 0);
      if (n > 0) problems.push(`${file}: ${c}: ${n} null values in a column that is never null`);
    }
    const others = Number(r.other_run_ids ?? 0);
    if (others > 0) {
      problems.push(
        `${file}: run_id: ${others} rows whose run_id is not run.json run_id ${
          JSON.stringify(source.run_id)
        }: a file of another run`,
      );
    }
    if (Number(r.unknown_outcomes ?? 0) > 0) {
      const bad = await engine.query(
        `SELECT DISTINCT outcome FROM ${readSource(source)} WHERE filename = ${
          sqlString(file)
        } AND NOT ${known} ORDER BY outcome`,
      );
      problems.push(`${file}: outcome: unknown values ${bad.map((b) => JSON.stringify(b.outcome)).join(", ")}`);
    }
    const big = Number(r.big_attempts ?? 0);
    if (big > 0) {
      problems.push(
        `${file}: attempt: ${big} rows numbered above ${MAX_ATTEMPT}: the SQL path orders (round, attempt) as ` +
          `round × 10⁶ + attempt + 1 and cannot order them (use \`deno task analyze\`)`,
      );
    }
    for (const [i, rule] of rules.entries()) {
      const n = Number(r[`rule_${i}`] ?? 0);
      if (n === 0) continue;
      const [ex] = await engine.query(
        `SELECT MIN(request_id) AS id FROM ${readSource(source)} WHERE filename = ${sqlString(file)} AND (${rule.bad})`,
      );
      problems.push(rule.problem(file, n, ex?.id));
    }
  }
  return problems;
}

/**
 * Refuses request ids found in more than one row of the run's requests (the
 * view over every shard, or the one folder's): a shard's rows copied into
 * another, or a row written twice, would be counted twice. Names up to five.
 */
export async function checkDistinctIds(engine: SqlEngine, path: string, shards: number): Promise<void> {
  const [c] = await engine.query("SELECT COUNT(*) AS n, COUNT(DISTINCT request_id) AS d FROM requests");
  const dupes = Number(c?.n ?? 0) - Number(c?.d ?? 0);
  if (dupes === 0) return;
  const some = await engine.query(
    "SELECT request_id FROM requests GROUP BY request_id HAVING COUNT(*) > 1 ORDER BY request_id LIMIT 5",
  );
  const named = some.map((r) => r.request_id).join(", ");
  const where = shards > 1
    ? `of the shards' requests logs (e.g. ${named}): a request is counted once per row, so rows were copied (a ` +
      `shard's into another, or within one)`
    : `of the requests log (e.g. ${named}): each offered request is one row, counted once per row`;
  throw new InputError(`${path}: ${shards > 1 ? "not one whole run" : "a request in two rows"}`, [
    `${path}: ${dupes} request_id values appear in more than one row ${where}`,
  ]);
}

/**
 * The joins every figure relies on, as the polars reader checks them (analysis/run/_row_joins.ts; the SQL path reads
 * no killed run and no recording, so none is a warning), shard by shard: an attempt key (`request_id`, `round`,
 * `attempt`) in two rows of a shard's attempts is refused, and so is an attempt whose `request_id` no request row of
 * its shard holds (it belongs to no figure), naming the file. Each names up to five, least first.
 */
export async function checkRowJoins(
  engine: SqlEngine,
  path: string,
  sources: Record<SqlTable, TableSource[]>,
): Promise<void> {
  const keys = `request_id, "round", attempt`;
  const problems: string[] = [];
  for (const [k, attempts] of sources.attempts.entries()) {
    const requests = sources.requests[k]!;
    const one = sources.attempts.length === 1;
    const twice = `SELECT ${keys} FROM ${readSource(attempts)} AS a GROUP BY ${keys} HAVING COUNT(*) > 1`;
    const [t] = await engine.query(`SELECT COUNT(*) AS n FROM (${twice}) AS k`);
    const n = Number(t?.n ?? 0);
    if (n > 0) {
      const some = await engine.query(`${twice} ORDER BY ${keys} LIMIT 5`);
      const named = some.map((r) => JSON.stringify([r.request_id, Number(r.round), Number(r.attempt)])).join(", ");
      throw attemptTwiceError(path, n, one ? "its attempts log" : attempts.path, named);
    }
    const orphans = `SELECT a.request_id FROM ${readSource(attempts)} AS a WHERE NOT EXISTS ` +
      `(SELECT 1 FROM ${readSource(requests)} AS r WHERE r.request_id = a.request_id)`;
    const [c] = await engine.query(`SELECT COUNT(*) AS n FROM (${orphans}) AS o`);
    const m = Number(c?.n ?? 0);
    if (m === 0) continue;
    const some = await engine.query(`SELECT DISTINCT request_id FROM (${orphans}) AS o ORDER BY request_id LIMIT 5`);
    const named = some.map((r) => String(r.request_id)).join(", ");
    problems.push(orphansProblem(orphansText(attempts.path, m, "attempts", requests.path, named)));
  }
  if (problems.length) throw orphansError(path, problems);
}
