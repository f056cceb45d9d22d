import pl from "nodejs-polars";
import { InputError } from "../../schema/errors.ts";
import { OUTCOMES, type TableName } from "../../schema/events.ts";
import { exampleKey, numericBounds, requiredColumns, valueProblem } from "../../schema/column_kinds.ts";
import { TIME_ORDER, type TimeOrder, timeOrderProblem } from "../../schema/time_order.ts";

function raise(problems: string[], file: string, table: TableName): void {
  if (problems.length) throw new InputError(`${file}: invalid ${table} log`, problems);
}

const unknownOutcomes = (values: unknown[], file: string) =>
  `${file}: outcome: unknown values ${values.map((o) => JSON.stringify(o)).join(", ")}`;

/** The file a frame or scan was read from: its path, its table and the run_id of its run.json. */
export interface CheckedFile {
  file: string;
  table: TableName;
  run_id: string;
}

/** Rows where `rule.later` is before `rule.earlier` (a null on either side is not). */
const outOfOrder = (rule: TimeOrder) => pl.col(rule.later).lt(pl.col(rule.earlier));

/** A rule on a table's rows: the rows it refuses, and the problem of `n` of them (`example`: one's key). */
interface RowRule {
  bad: pl.Expr;
  problem: (n: number, example: unknown) => string;
}

/**
 * The value rules of `table`'s rows: every number finite and none below its contract minimum (schema/column_kinds.ts
 * `numericBounds`), then the order of each row's times (schema/time_order.ts).
 */
function rowRules(file: string, table: TableName): RowRule[] {
  const key = exampleKey(table);
  const rules: RowRule[] = [];
  for (const b of numericBounds(table)) {
    const c = pl.col(b.name);
    if (b.kind === "float") {
      const what = "that is not finite (NaN or infinite)";
      rules.push({
        bad: c.isNan().or(c.isInfinite()),
        problem: (n, ex) => valueProblem(file, b.name, n, what, key, ex),
      });
    }
    if (b.min !== null) {
      const what = `below ${b.min}`;
      rules.push({ bad: c.lt(pl.lit(b.min)), problem: (n, ex) => valueProblem(file, b.name, n, what, key, ex) });
    }
  }
  for (const rule of TIME_ORDER[table] ?? []) {
    rules.push({ bad: outOfOrder(rule), problem: (n, ex) => timeOrderProblem(file, rule, n, ex) });
  }
  return rules;
}

const otherRunIds = (n: number, file: string, runId: string) =>
  `${file}: run_id: ${n} rows whose run_id is not run.json run_id ${JSON.stringify(runId)}: a file of another run`;

/**
 * Refuses nulls in never-null columns, outcomes outside the contract, a
 * run_id other than run.json's, numbers that are not finite or below their
 * contract minimum, and times out of their order (schema/time_order.ts) in a
 * read frame, naming the file and column ({@linkcode InputError}).
 */
export function checkFrame(df: pl.DataFrame, { file, table, run_id }: CheckedFile): void {
  const problems: string[] = [];
  for (const c of requiredColumns(table)) {
    const n = df.getColumn(c).nullCount();
    if (n > 0) problems.push(`${file}: ${c}: ${n} null values in a column that is never null`);
  }
  const others = Number(df.select(pl.col("run_id").neq(pl.lit(run_id)).sum()).row(0)[0] ?? 0);
  if (others > 0) problems.push(otherRunIds(others, file, run_id));
  if (table === "requests") {
    const bad = df.getColumn("outcome").unique().toArray().filter((o) => !(OUTCOMES as readonly unknown[]).includes(o));
    if (bad.length) problems.push(unknownOutcomes(bad, file));
  }
  for (const rule of rowRules(file, table)) {
    const bad = df.filter(rule.bad);
    if (bad.height > 0) problems.push(rule.problem(bad.height, bad.getColumn(exampleKey(table)).get(0)));
  }
  raise(problems, file, table);
}

/**
 * The checks of {@linkcode checkFrame} on a lazy scan of one file, as one
 * aggregate query that reads the never-null columns, `outcome` and the
 * numeric columns whose values it checks.
 * Async, so a file's hash can stream at the same time; polars holds those
 * columns of this one file (one shard) while it counts, not the whole run.
 */
export async function checkScan(lf: pl.LazyDataFrame, { file, table, run_id }: CheckedFile): Promise<void> {
  const required = requiredColumns(table);
  const known = pl.col("outcome").isIn([...OUTCOMES]);
  const rules = rowRules(file, table);
  const counts = (await lf.select(
    ...required.map((c) => pl.col(c).nullCount().cast(pl.Float64).alias(c)),
    pl.col("run_id").neq(pl.lit(run_id)).sum().cast(pl.Float64).alias("_other_run_ids"),
    ...(table === "requests" ? [known.not().sum().cast(pl.Float64).alias("_unknown_outcomes")] : []),
    ...rules.map((rule, i) => rule.bad.sum().cast(pl.Float64).alias(`_rule_${i}`)),
  ).collect()).toRecords()[0] ?? {};
  const problems: string[] = [];
  for (const c of required) {
    const n = Number(counts[c] ?? 0);
    if (n > 0) problems.push(`${file}: ${c}: ${n} null values in a column that is never null`);
  }
  const others = Number(counts._other_run_ids ?? 0);
  if (others > 0) problems.push(otherRunIds(others, file, run_id));
  if (Number(counts._unknown_outcomes ?? 0) > 0) {
    // Only on failure: name the values.
    const bad = await lf.select("outcome").filter(known.not()).unique().collect();
    problems.push(unknownOutcomes(bad.getColumn("outcome").toArray(), file));
  }
  for (const [i, rule] of rules.entries()) {
    const n = Number(counts[`_rule_${i}`] ?? 0);
    if (n === 0) continue;
    // Only on failure: one of the rows, for the message.
    const example = await lf.filter(rule.bad).select(exampleKey(table)).head(1).collect();
    problems.push(rule.problem(n, example.getColumn(exampleKey(table)).get(0)));
  }
  raise(problems, file, table);
}
