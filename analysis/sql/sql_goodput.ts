/**
 * Accepted goodput of a run, counted by SQL on DuckDB: the same
 * `GoodputResult` as `goodput()` (analysis/goodput/goodput.ts) — the same
 * tables, the same disclosure built by the same code — from the query of
 * `goodput_sql.ts`.
 *
 * @module
 */
import { FAILURE_REASONS, type FailureReason, GATES, type SloPolicy } from "../../schema/slo.ts";
import { buildDisclosure, noGates, noStreaming, type Observed } from "../goodput/disclosure.ts";
import type { GoodputResult, GoodputRow } from "../goodput/goodput.ts";
import { checkPolicyClasses, parseSloPolicy, runWindow } from "../goodput/policy.ts";
import { refuseMeasuredQuality } from "../goodput/quality_source.ts";
import { modeLabel, undeclaredModeWarning } from "../goodput/service_modes.ts";
import { STREAMING } from "../goodput/streaming_rules.ts";
import { hasTimeWindow } from "../run/imported_run.ts";
import type { SqlRow } from "./duckdb.ts";
import { goodputSql } from "./goodput_sql.ts";
import type { SqlRun } from "./sql_run.ts";

/** The policy an SQL analysis applies: validated, and every class it names a class of the run's workload. */
export function sqlPolicy(run: SqlRun, input: unknown, source: string): SloPolicy {
  const policy = parseSloPolicy(input, source);
  refuseMeasuredQuality(policy, source);
  if (!Object.keys(policy.classes).length) return policy;
  return checkPolicyClasses(policy, [{ run_id: run.manifest.run_id, dir: run.dir, workload: run.workload }], source);
}

type Cell = SqlRow[string] | undefined;
const num = (v: Cell): number => Number(v ?? 0);
const numOrNull = (v: Cell): number | null => (v === null || v === undefined ? null : Number(v));

function goodputRow(r: SqlRow): GoodputRow {
  return {
    offered: num(r.offered),
    sent: num(r.sent),
    completed: num(r.completed),
    accepted: num(r.accepted),
    measurement_seconds: numOrNull(r.measurement_seconds),
    accepted_goodput: numOrNull(r.accepted_goodput),
    acceptance_rate: numOrNull(r.acceptance_rate),
    slo_miss_rate: numOrNull(r.slo_miss_rate),
    failures: Object.fromEntries(FAILURE_REASONS.map((f) => [f, num(r[`failed_${f}`])])) as Record<
      FailureReason,
      number
    >,
  };
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The result of {@linkcode sqlGoodput}: the goodput result and the query that counted it. */
export interface SqlGoodput {
  result: GoodputResult;
  /** The query, as run (portable SQL over the tables `requests` and `attempts`). */
  sql: string;
}

/**
 * Accepted goodput of a run opened by `openSqlRun`, under an SLO policy: the
 * same result as `goodput()` on the same log (test/analysis/sql/), counted
 * by one SQL query. The policy is validated like `goodput()`'s.
 *
 * @example
 * ```ts ignore
 * const run = await openSqlRun("data/runs/explore");
 * const { result } = await sqlGoodput(run, await loadSloPolicy("data/slo/design-v1.json"));
 * run.close();
 * ```
 */
export async function sqlGoodput(run: SqlRun, input: SloPolicy): Promise<SqlGoodput> {
  const policy = sqlPolicy(run, input, "sqlGoodput() policy");
  const window = runWindow(run, policy.window);
  const sql = goodputSql(policy, window, { timed: hasTimeWindow(run.manifest) });
  const rows = await run.engine.query(sql);
  const of = (grain: string) => rows.filter((r) => r.grain === grain);
  const label = (v: Cell) => (v === null || v === undefined ? null : String(v));
  const overallRow = of("overall")[0];
  if (!overallRow) throw new Error("sqlGoodput: the query returned no overall row");
  const overall = goodputRow(overallRow);
  const classRows = of("class").sort((a, b) => cmp(String(a.class), String(b.class)));
  const by_class = classRows.map((r) => ({ class: String(r.class), ...goodputRow(r) }));
  const order = new Map(run.manifest.stages.map((s, i) => [s.name, i]));
  const at = (s: string) => order.get(s) ?? Infinity;
  const by_stage = of("stage").map((r) => ({ stage: String(r.stage), ...goodputRow(r) }))
    .sort((a, b) => at(a.stage) - at(b.stage) || cmp(a.stage, b.stage));
  const by_class_stage = of("class_stage").map((r) => ({
    class: String(r.class),
    stage: String(r.stage),
    ...goodputRow(r),
  })).sort((a, b) => cmp(a.class, b.class) || at(a.stage) - at(b.stage) || cmp(a.stage, b.stage));
  const by_mode = of("mode").map((r) => ({ mode: label(r.service_mode), ...goodputRow(r) }))
    .sort((a, b) => (a.mode === b.mode ? 0 : a.mode === null ? -1 : b.mode === null ? 1 : cmp(a.mode, b.mode)));
  // What the disclosure states per class: completed requests by how they were streamed, and gates passed as n/a.
  const observed: Observed = { streaming: {}, gates_na: {} };
  for (const r of classRows) {
    const c = String(r.class);
    observed.streaming[c] = Object.assign(noStreaming(), Object.fromEntries(STREAMING.map((s) => [s, num(r[s])])));
    observed.gates_na[c] = Object.assign(noGates(), Object.fromEntries(GATES.map((g) => [g, num(r[`na_${g}`])])));
  }
  const disclosure = buildDisclosure(run, policy, window, {
    overall: overall.offered,
    by_class: Object.fromEntries(by_class.map((r) => [r.class, r.offered])),
    by_stage: Object.fromEntries(by_stage.map((r) => [r.stage, r.offered])),
    by_mode: Object.fromEntries(by_mode.map((r) => [modeLabel(r.mode), r.offered])),
  }, observed);
  disclosure.files.read = run.read;
  const undeclared = undeclaredModeWarning(by_mode);
  if (undeclared) disclosure.warnings = [...disclosure.warnings, undeclared];
  return { result: { disclosure, overall, by_class, by_stage, by_class_stage, by_mode }, sql };
}
