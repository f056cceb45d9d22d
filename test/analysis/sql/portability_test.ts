import assert from "node:assert/strict";
import { goodputSql } from "../../../analysis/sql/goodput_sql.ts";
import { latencySql } from "../../../analysis/sql/latency_sql.ts";
import { ALLOWED_FUNCTION_NAMES, SQL_FUNCTIONS } from "../../../analysis/sql/sql_functions.ts";
import { sweepSql } from "../../../analysis/sql/sweep_sql.ts";
import { parseSloPolicy } from "../../../analysis/goodput/policy.ts";

/** Words followed by `(` that are SQL syntax, not functions. */
const SYNTAX = new Set([
  "AS",
  "IN",
  "VALUES",
  "OVER",
  "FROM",
  "AND",
  "OR",
  "NOT",
  "SETS",
  "GROUP",
  "JOIN",
  "ON",
  "WHEN",
  "THEN",
  "ELSE",
  "SELECT",
  "WHERE",
  "BY",
  "ALL",
]);

/**
 * Every name the SQL calls as a function: a word followed by `(`, but not a
 * keyword and not an alias with a column list (`AS w(stage, seconds)`);
 * string literals are skipped.
 */
function functionsCalled(sql: string): Set<string> {
  const text = sql.replace(/'(?:[^']|'')*'/g, "''");
  const out = new Set<string>();
  for (const m of text.matchAll(/(\bAS\s+)?\b([A-Za-z_][A-Za-z0-9_]*)\s*\(/gi)) {
    if (m[1]) continue;
    const name = m[2]!.toUpperCase();
    if (!SYNTAX.has(name)) out.add(name);
  }
  return out;
}

const POLICY = parseSloPolicy({
  denominator: "sent",
  window: { exclude_stage_kinds: ["warmup"] },
  classes: {
    "it's": { e2e_ms: 1000, ttft_ms: 200, gates: ["output_valid"], modes: { short: { output: "short", gates: [] } } },
  },
  default: { e2e_ms: 2000, tpot_ms: 30 },
  modes: { cached: { output: "cached", gates: ["safety_ok", "auth_ok", "output_valid", "quality_ok"] } },
}, "test policy");
const WINDOW = {
  intervals: [[0, 1000], [2000, 3000]] as [number, number][],
  measurement_seconds: 2,
  stage_seconds: {},
};

/** The portable queries, built over a policy with modes, an apostrophe in a class name and a two-interval window. */
const QUERIES: [string, string][] = [
  ["goodput", goodputSql(POLICY, { ...WINDOW, stage_seconds: { s: 1, t: 1 } }, { timed: true })],
  ["goodput of an empty window", goodputSql(POLICY, WINDOW, { timed: false })],
  ["latency", latencySql(WINDOW, { byStage: true, percentiles: [0.5, 0.999, 1] })],
  ["sweep", sweepSql(POLICY, WINDOW, { metric: "ttft_ms", limits: [100, 250.5], timed: true })],
];

Deno.test("the portable queries call only the documented functions", async (t) => {
  await t.step("the scanner finds a function outside the list (the check can fail)", () => {
    const called = functionsCalled("SELECT quantile_disc(x, 0.5), COUNT(*) FROM read_parquet('a(b)') AS t(x)");
    assert.deepEqual([...called].filter((f) => !ALLOWED_FUNCTION_NAMES.has(f)), ["QUANTILE_DISC", "READ_PARQUET"]);
  });
  for (const [name, sql] of QUERIES) {
    await t.step(name, () => {
      const called = functionsCalled(sql);
      assert.deepEqual([...called].filter((f) => !ALLOWED_FUNCTION_NAMES.has(f)), []);
      assert.ok(called.size > 2, "the scanner sees the calls");
    });
  }
});

Deno.test("the portable queries use no DuckDB-only syntax", () => {
  const duckdbOnly: [string, RegExp][] = [
    ["a :: cast", /::/],
    ["integer division //", /\/\//],
    ["a list literal", /\[/],
    ["read_parquet", /read_parquet/i],
    ["QUALIFY", /\bQUALIFY\b/i],
    ["a FILTER clause", /\bFILTER\s*\(/i],
    ["MATERIALIZED", /\bMATERIALIZED\b/i],
    ["a double-quoted identifier", /"/],
    ["a DECIMAL or exponent-free float literal compared with a time", /[<>=]\s*\d+\.\d+(?!\d*E)/],
  ];
  for (const [name, sql] of QUERIES) {
    const text = sql.replace(/'(?:[^']|'')*'/g, "''");
    for (const [what, re] of duckdbOnly) assert.doesNotMatch(text, re, `${name}: ${what}`);
  }
});

Deno.test("docs/sql.md lists every allowed function with its DuckDB, Spark and Trino spelling", () => {
  const doc = Deno.readTextFileSync(new URL("../../../docs/sql.md", import.meta.url));
  for (const f of SQL_FUNCTIONS) {
    const row = doc.split("\n").find((l) => new RegExp(`^\\| \`${f.name}\`\\s+\\|`).test(l));
    assert.ok(row, `docs/sql.md has no row for ${f.name}`);
    for (const cell of [f.duckdb, f.spark, f.trino]) assert.ok(row.includes(cell), `${f.name}: ${cell}`);
  }
});

Deno.test("the SQL path loads DuckDB and no polars", async () => {
  // Run the command's modules and a query in a fresh process, then look at the native libraries it mapped.
  const code = `
    await import("./analysis/cli/sql.ts");
    const { openSqlRun, sqlGoodput } = await import("./analysis/sql/mod.ts");
    const { loadSloPolicy } = await import("./analysis/goodput/policy.ts");
    const run = await openSqlRun("data/runs/explore", { onWarning: () => {} });
    await sqlGoodput(run, await loadSloPolicy("data/slo/design-v1.json"));
    run.close();
    const libs = Deno.readTextFileSync("/proc/self/maps").split("\\n").map((l) => l.split(" ").at(-1))
      .filter((f) => f.endsWith(".node"));
    console.log(JSON.stringify([...new Set(libs)]));
  `;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["eval", code],
    cwd: new URL("../../../", import.meta.url).pathname,
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  const libs = JSON.parse(new TextDecoder().decode(out.stdout).trim().split("\n").at(-1)!) as string[];
  assert.ok(libs.some((l) => /duckdb/.test(l)), `DuckDB's library is loaded: ${libs.join(", ")}`);
  assert.deepEqual(libs.filter((l) => /polars/.test(l)), []);
});
