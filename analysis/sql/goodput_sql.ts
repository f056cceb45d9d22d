/**
 * The goodput tables as one SQL query: the classification
 * (`classify_sql.ts`), counted once by class × stage × mode × reason ×
 * streaming × sent × completed (`fine`: a few hundred rows whatever the log's
 * size), then the overall, by-class, by-stage, by-class × stage and by-mode
 * tables summed from it, each row with its measurement seconds and rates — as
 * `goodput()` (analysis/goodput/goodput.ts) counts them.
 *
 * @module
 */
import { FAILURE_REASONS, GATES, type SloPolicy } from "../../schema/slo.ts";
import type { ResolvedWindow } from "../goodput/policy.ts";
import { STREAMING } from "../goodput/streaming_rules.ts";
import { classifyCtes } from "./classify_sql.ts";
import { sqlDoubleOrNull, sqlString, withClause } from "./_sql_text.ts";

/** The tables of the result, as the `grain` column names them. */
export const GRAINS = ["overall", "class", "stage", "class_stage", "mode"] as const;
export type Grain = typeof GRAINS[number];

/** The count columns of every row, in output order (`failed_<reason>` per failure reason). */
export const COUNT_COLUMNS = [
  "offered",
  "sent",
  "completed",
  "accepted",
  ...FAILURE_REASONS.map((r) => `failed_${r}`),
  ...STREAMING,
  ...GATES.map((g) => `na_${g}`),
] as const;

/** The sum of each count over `fine` rows, with its alias (zero over no rows). */
function countSums(): string[] {
  const when = (cond: string) => `COALESCE(SUM(CASE WHEN ${cond} THEN n ELSE 0 END), 0)`;
  return [
    "COALESCE(SUM(n), 0) AS offered",
    `${when("sent")} AS sent`,
    `${when("completed")} AS completed`,
    `${when("reason IS NULL")} AS accepted`,
    ...FAILURE_REASONS.map((r) => `${when(`reason = ${sqlString(r)}`)} AS failed_${r}`),
    ...STREAMING.map((s) => `${when(`streaming = ${sqlString(s)}`)} AS ${s}`),
    ...GATES.map((g) => `COALESCE(SUM(na_${g}), 0) AS na_${g}`),
  ];
}

/**
 * The rate columns over a row of counts and its seconds (each null when its
 * denominator is 0 or null): accepted_goodput = accepted / seconds,
 * acceptance_rate = accepted / offered, slo_miss_rate = (D − accepted) / D.
 * Counts are cast to DOUBLE first: in Trino an integer over an integer is an
 * integer division.
 */
function rates(denominator: SloPolicy["denominator"]): string[] {
  const d = denominator;
  return [
    "CASE WHEN measurement_seconds > 0 THEN CAST(accepted AS DOUBLE) / measurement_seconds END AS accepted_goodput",
    "CASE WHEN offered > 0 THEN CAST(accepted AS DOUBLE) / offered END AS acceptance_rate",
    `CASE WHEN ${d} > 0 THEN CAST(${d} - accepted AS DOUBLE) / ${d} END AS slo_miss_rate`,
  ];
}

/** Every column of a result row, in order. */
export const GOODPUT_COLUMNS = [
  "grain",
  "class",
  "stage",
  "service_mode",
  "measurement_seconds",
  "accepted_goodput",
  "acceptance_rate",
  "slo_miss_rate",
  ...COUNT_COLUMNS,
] as const;

/** Options of {@linkcode goodputSql}. */
export interface GoodputSqlOptions {
  /** The window's measurement seconds apply (false: an imported run without a time window; every rate null). */
  timed: boolean;
}

/**
 * The goodput query of `policy` over the tables `requests` and `attempts`
 * in a resolved window: one row per table row, `grain` saying which table
 * (`overall`, `class`, `stage`, `class_stage`, `mode`), with the labels
 * (`class`, `stage`, `service_mode`; null where the table has none), the
 * measurement seconds (the window's; a stage's own seconds inside the window
 * for `stage` and `class_stage` rows), the rates, the counts (`offered`,
 * `sent`, `completed`, `accepted`, `failed_<reason>`), and the disclosure's
 * counts: completed requests by how they were streamed and per gate passed as
 * n/a. Every stage of the window has a `stage` row, zero when none of its
 * requests was offered.
 *
 * @example The five tables come from one pass
 * ```ts
 * import assert from "node:assert/strict";
 * import { goodputSql } from "./goodput_sql.ts";
 * const sql = goodputSql({ denominator: "offered", window: { exclude_stage_kinds: [] }, classes: {},
 *   default: { e2e_ms: 5000, gates: ["output_valid"] } },
 *   { intervals: [[0, 60_000]], measurement_seconds: 60, stage_seconds: { steady: 60 } }, { timed: true });
 * assert.match(sql, /'class_stage' AS grain/);
 * assert.equal(sql.match(/FROM classified/g)?.length, 1);
 * ```
 */
export function goodputSql(
  policy: SloPolicy,
  window: Pick<ResolvedWindow, "intervals" | "measurement_seconds" | "stage_seconds">,
  options: GoodputSqlOptions,
): string {
  const secs = (x: number) => sqlDoubleOrNull(options.timed ? x : null);
  const stages = Object.entries(window.stage_seconds);
  const winStages = stages.length
    ? `SELECT stage, seconds FROM (VALUES ${
      stages.map(([s, x]) => `(${sqlString(s)}, ${secs(x)})`).join(", ")
    }) AS w(stage, seconds)`
    // No stage in the window (a range between stages): an empty table of the same columns.
    : "SELECT CAST(NULL AS VARCHAR) AS stage, CAST(NULL AS DOUBLE) AS seconds FROM (VALUES (1)) AS w(x) WHERE 1 = 0";
  const fine = [
    "SELECT",
    "  class, stage, service_mode, reason, streaming, sent, completed, COUNT(*) AS n,",
    GATES.map((g) => `  SUM(CASE WHEN na_${g} THEN 1 ELSE 0 END) AS na_${g}`).join(",\n"),
    "FROM classified",
    "GROUP BY class, stage, service_mode, reason, streaming, sent, completed",
  ].join("\n");
  const sums = countSums().join(", ");
  const counts = COUNT_COLUMNS.join(", ");
  const zeroCounts = COUNT_COLUMNS.map((c) => `COALESCE(a.${c}, 0) AS ${c}`).join(", ");
  const nul = "CAST(NULL AS VARCHAR)";
  const tables = [
    [
      "overall",
      `SELECT 'overall' AS grain, ${nul} AS class, ${nul} AS stage, ${nul} AS service_mode, ` +
      `${secs(window.measurement_seconds)} AS measurement_seconds, ${sums} FROM fine`,
    ],
    [
      "by_class",
      `SELECT 'class' AS grain, class, ${nul} AS stage, ${nul} AS service_mode, ` +
      `${secs(window.measurement_seconds)} AS measurement_seconds, ${sums} FROM fine GROUP BY class`,
    ],
    [
      "by_stage",
      `SELECT 'stage' AS grain, ${nul} AS class, COALESCE(a.stage, w.stage) AS stage, ${nul} AS service_mode, ` +
      `w.seconds AS measurement_seconds, ${zeroCounts}\n` +
      `FROM (SELECT stage, ${sums} FROM fine GROUP BY stage) AS a\n` +
      "FULL OUTER JOIN win_stages AS w ON w.stage = a.stage",
    ],
    [
      "by_class_stage",
      `SELECT 'class_stage' AS grain, a.class, a.stage, ${nul} AS service_mode, w.seconds AS measurement_seconds, ` +
      `${counts}\nFROM (SELECT class, stage, ${sums} FROM fine GROUP BY class, stage) AS a\n` +
      "LEFT JOIN win_stages AS w ON w.stage = a.stage",
    ],
    [
      "by_mode",
      `SELECT 'mode' AS grain, ${nul} AS class, ${nul} AS stage, service_mode, ` +
      `${secs(window.measurement_seconds)} AS measurement_seconds, ${sums} FROM fine GROUP BY service_mode`,
    ],
  ] as const;
  const rows = tables.map(([name]) =>
    `SELECT grain, class, stage, service_mode, measurement_seconds, ${rates(policy.denominator).join(", ")}, ` +
    `${counts} FROM ${name}`
  );
  return [
    withClause([
      ...classifyCtes(policy, window),
      ["win_stages", winStages],
      ["fine", fine],
      ...tables.map(([name, body]) => [name, body] as [string, string]),
    ]),
    rows.join("\nUNION ALL\n"),
  ].join("\n");
}
