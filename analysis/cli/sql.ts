import { join } from "node:path";
import type { InputCheck } from "../../lib/cli.ts";
import { type CommandSpec, type ParsedCommand, runCommand } from "../../lib/command.ts";
import { fixed, sig } from "../../lib/number_format.ts";
import { textTable } from "../../lib/text_table.ts";
import { isImported } from "../../schema/imported_manifest.ts";
import type { SloPolicy } from "../../schema/slo.ts";
import { formatGoodput } from "../goodput/format_goodput.ts";
import { loadSloPolicy, runWindow } from "../goodput/policy.ts";
import { sha256File } from "../run/_run_folders.ts";
import { percentLabel } from "../latency/_percentile_checks.ts";
import type { SloMetric } from "../sql/classify_sql.ts";
import { latencySql } from "../sql/latency_sql.ts";
import { sqlGoodput, sqlPolicy } from "../sql/sql_goodput.ts";
import { SQL_LATENCY_RULE, sqlLatency, type SqlLatencyRow, sqlSweep, type SqlSweepRow } from "../sql/sql_latency.ts";
import { decideSqlRun, openSqlRun, type SqlRun } from "../sql/sql_run.ts";
import { e2eDeadlines } from "../goodput/e2e_deadlines.ts";
import { goodputSql } from "../sql/goodput_sql.ts";
import { sweepSql } from "../sql/sweep_sql.ts";
import { hasTimeWindow } from "../run/imported_run.ts";
import { defaultSloFile, DENOMINATOR_FLAG, JSON_FLAG, OPEN_FLAGS, runArgument, SLO_FLAG } from "./_flags.ts";

/** The sweep's default limits, ms: a 1-2-5 grid from 50 ms to 60 s. */
export const DEFAULT_SWEEP_LIMITS = [50, 100, 200, 500, 1000, 2000, 5000, 10_000, 20_000, 60_000];

/** `npx deno task sql`: its flags, arguments and help (lib/command.ts). */
export const SQL_COMMAND = {
  name: "sql",
  invocation: "npx deno task sql",
  summary: "the goodput table of one run, its latency percentiles and an SLO sweep, counted by SQL on DuckDB " +
    "(for logs larger than memory; the queries are portable to Spark SQL and Trino)",
  details: [
    "The contract's definitions as SQL (analysis/sql/, docs/sql.md) run by embedded DuckDB over the run's Parquet " +
    "files — one folder, `shard-i-of-N/` folders, or hive-partitioned `requests/key=value/*.parquet` — streamed, " +
    "spilling to disk above `--memory-limit`. The same numbers and disclosure as `analyze`: test/analysis/sql/ checks " +
    "them equal on random logs and the sample runs. Reads Parquet only; a killed run is refused (analyze restores it).",
  ],
  positionals: [runArgument(1, 1)],
  flags: {
    ...SLO_FLAG,
    ...DENOMINATOR_FLAG,
    sweep: {
      type: "string",
      arg: "METRIC",
      choices: ["e2e_ms", "ttft_ms", "tpot_ms"],
      defaultText: "none",
      description: "add an SLO sweep: accepted goodput per class at each of `--limits` on this metric, every other " +
        "condition of the policy held",
    },
    limits: {
      type: "string",
      arg: "MS,…",
      defaultText: `\`${DEFAULT_SWEEP_LIMITS.join(",")}\``,
      values: "comma-separated positive numbers (ms)",
      description: "the limits of `--sweep` (refused without it)",
    },
    "memory-limit": {
      type: "string",
      arg: "SIZE",
      defaultText: "DuckDB's: 80 % of RAM",
      values: "a number and a unit: `B`, `KB`, `MB`, `GB`, `TB` or `KiB`, `MiB`, `GiB`, `TiB` (e.g. `2GB`, `512MiB`)",
      description: "DuckDB's memory limit: above it, its joins and sorts spill to disk",
    },
    "print-sql": {
      type: "boolean",
      description: "print the SQL instead of running it: DuckDB's views over the files, then the portable queries " +
        "(goodput, percentiles, and the sweep with `--sweep`) over the tables `requests` and `attempts`",
    },
    ...JSON_FLAG,
    ...OPEN_FLAGS,
  },
  examples: [
    "npx deno task sql data/runs/explore",
    "npx deno task sql data/runs/explore --sweep e2e_ms --limits 1000,2000,4000,8000",
    "npx deno task sql data/runs/explore --print-sql",
  ],
} as const satisfies CommandSpec;

/** The limits of `--limits`, or a problem. */
function parseLimits(check: InputCheck, text: string): number[] {
  const limits = text.split(",").map((s) => Number(s.trim()));
  check.require(
    !limits.length || limits.some((x) => !(Number.isFinite(x) && x > 0)),
    `--limits ${text}: expected comma-separated positive numbers (ms)`,
  );
  return limits;
}

/** What `--memory-limit` allows: a DuckDB size, a number and a unit (DuckDB's own error does not name the flag). */
const MEMORY_LIMIT = /^\d+(\.\d+)?\s*(B|[KMGT]i?B)$/i;

/** `--memory-limit`, or a problem naming the flag. */
function parseMemoryLimit(check: InputCheck, text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const ok = MEMORY_LIMIT.test(text.trim()) && Number.parseFloat(text) > 0;
  check.require(
    !ok,
    `--memory-limit: expected a size above 0 with a unit B, KB, MB, GB, TB, KiB, MiB, GiB or TiB, got ${
      JSON.stringify(text)
    }`,
  );
  return ok ? text.trim() : undefined;
}

/** `--slo`, else the run's default (an imported run's policy, verified by its sha256; else its workload's). */
async function policyFile(check: InputCheck, run: SqlRun, flag: string | undefined): Promise<string | undefined> {
  if (flag !== undefined) return flag;
  const m = run.manifest;
  if (isImported(m)) {
    if (!m.slo) {
      check.problems.push(`an SLO policy is required: run ${m.run_id} was imported without --slo; pass --slo FILE`);
      return undefined;
    }
    const file = join(run.dir, m.slo.file);
    const got = await sha256File(file);
    if (got === m.slo.sha256) return file;
    check.problems.push(
      `${file}: sha256 ${got} does not match run.json slo.sha256 ${m.slo.sha256}: the policy was changed`,
    );
    return undefined;
  }
  const file = defaultSloFile(m.workload.name);
  if (file === undefined) {
    check.problems.push(
      `an SLO policy is required: workload "${m.workload.name}" has no default policy in data/slo/; pass --slo FILE`,
    );
  }
  return file;
}

const DIGITS = 5;

/** The distinct limits, ascending (as `sqlSweep` runs them). */
const distinct = (xs: readonly number[]) => [...new Set(xs)].sort((a, b) => a - b);

function formatLatency(rows: SqlLatencyRow[], window: string): string {
  const ps = [...new Set(rows.map((r) => r.p))];
  const groups = new Map<string, SqlLatencyRow[]>();
  for (const r of rows) groups.set(`${r.class}/${r.metric}`, [...(groups.get(`${r.class}/${r.metric}`) ?? []), r]);
  const body = [...groups.values()].map((g) => [
    g[0]!.class ?? "all",
    g[0]!.metric,
    String(g[0]!.n),
    String(g[0]!.excluded),
    ...ps.map((p) => sig(g.find((r) => r.p === p)?.value ?? null, DIGITS)),
  ]);
  return [
    `latency (window: ${window}; ${SQL_LATENCY_RULE}; n = requests with the metric; excluded = completed requests ` +
    "without it; confidence intervals and the early-stopping support flag: `analyze`)",
    ...textTable(["class", "metric", "n", "excluded", ...ps.map(percentLabel)], body),
  ].join("\n");
}

function formatSweep(rows: SqlSweepRow[], metric: SloMetric, rule: string, den: string): string {
  const body = rows.map((r) => [
    r.class ?? "all",
    sig(r.limit_ms, DIGITS),
    String(r.accepted),
    String(r.denominator),
    fixed(r.accepted_goodput, 4),
    fixed(r.acceptance_rate, 4),
  ]);
  return [
    `SLO sweep of ${metric} (${rule}; rate = accepted / ${den}; goodput over the window's measurement_seconds)`,
    ...textTable(["class", `${metric} limit`, "accepted", den, "goodput/s", "rate"], body),
  ].join("\n");
}

async function main({ values: v, positionals, check }: ParsedCommand<typeof SQL_COMMAND>): Promise<void> {
  check.require(v.limits !== undefined && !v.sweep, "--limits needs --sweep METRIC: the limits are those of a sweep");
  const limits = v.sweep ? parseLimits(check, v.limits ?? DEFAULT_SWEEP_LIMITS.join(",")) : [];
  const memoryLimit = parseMemoryLimit(check, v["memory-limit"]);
  // Without its RUN argument the parser has named the problem already.
  const dir = positionals[0];
  const opened = dir === undefined ? undefined : await check.load(() =>
    openSqlRun(dir, {
      verify: v.verify as "strict" | "warn",
      allowPartialShards: v["partial-shards"],
      ...(memoryLimit === undefined ? {} : { memoryLimit }),
    })
  );
  const file = opened ? await policyFile(check, opened, v.slo) : undefined;
  const loaded = file === undefined ? undefined : await check.load(() => loadSloPolicy(file));
  const policy = opened && loaded ? await check.load(() => sqlPolicy(opened, loaded, file!)) : undefined;
  // Under the policy, the requests the stop cut off already past their e2e limit failed (not censored).
  const run = opened && policy ? await decideSqlRun(opened, e2eDeadlines(policy, file!)) : opened;
  if (check.problems.length) run?.close();
  check.throwIfAny();
  try {
    const den = v.denominator;
    const effective: SloPolicy = den ? { ...policy!, denominator: den } : policy!;
    const window = runWindow(run!, effective.window);
    const metric = v.sweep as SloMetric | undefined;
    if (v["print-sql"]) {
      const timed = hasTimeWindow(run!.manifest);
      const statements = [
        "-- DuckDB: the tables over the run's files (Spark/Trino: a table over the same files, docs/sql.md)",
        ...run!.views,
        "-- the goodput tables",
        goodputSql(effective, window, { timed }),
        "-- latency percentiles",
        latencySql(window),
        ...(metric
          ? [`-- SLO sweep of ${metric}`, sweepSql(effective, window, { metric, limits: distinct(limits), timed })]
          : []),
      ];
      console.log(statements.map((s) => (s.startsWith("--") ? s : `${s};\n`)).join("\n"));
      return;
    }
    const { result } = await sqlGoodput(run!, effective);
    const latency = await sqlLatency(run!, window);
    const sweep = metric ? await sqlSweep(run!, effective, { metric, limits }) : null;
    if (v.json) {
      const { disclosure, overall, by_class, by_stage, by_mode } = result;
      console.log(JSON.stringify(
        {
          engine: "duckdb",
          disclosure: { ...disclosure, slo_file: file },
          overall,
          by_class,
          by_stage,
          by_mode,
          latency: { window: window.description, rule: SQL_LATENCY_RULE, rows: latency.rows },
          ...(sweep ? { sweep: { metric, rule: sweep.rule, rows: sweep.rows } } : {}),
        },
        null,
        2,
      ));
      return;
    }
    const header = [
      `SLO policy: ${file}${den ? ` (denominator overridden by --denominator ${den})` : ""}`,
      "engine: DuckDB (embedded), the SQL of analysis/sql/ over the Parquet files (--print-sql shows it)",
    ];
    console.log(formatGoodput(result, { header }));
    console.log(`\n${formatLatency(latency.rows, window.description)}`);
    if (sweep) console.log(`\n${formatSweep(sweep.rows, metric!, sweep.rule, effective.denominator)}`);
  } finally {
    run!.close();
  }
}

if (import.meta.main) await runCommand(SQL_COMMAND, main);
