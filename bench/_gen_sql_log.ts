/**
 * A seeded generator of a large sharded run log for the SQL benchmark
 * (`bench/sql_bench.ts`): `shard-i-of-N/` folders, each with run.json (a
 * valid `RunManifest`, `plan.shard` = i of N, the files' sha256) and
 * requests, attempts and an empty tools table as Parquet, written by DuckDB
 * straight from SQL (no row passes through JavaScript, so 10 M requests take
 * minutes and little memory). The shapes follow `bench/_gen_log.ts`:
 * design-v1 classes and 1 % of an unlisted class, warm-up/low/medium/peak/
 * burst/drain stages, every outcome, e2e drawn around each class's limit and
 * stretched by load, `extract_json` unstreamed, 5 % of requests without
 * streaming or applicable gates recorded (the 1.0 rules), null and false
 * gates, tool rounds and 5 % retried first attempts. Every draw is DuckDB's
 * `hash()` of (seed, request, draw): the same seed, sizes and DuckDB
 * version give the same rows.
 *
 * @module
 */
import { join } from "node:path";
import { openEngine, type SqlEngine } from "../analysis/sql/duckdb.ts";
import { sha256File } from "../analysis/run/_run_folders.ts";
import { columnSpecs } from "../schema/column_kinds.ts";
import type { Stage } from "../schema/plan.ts";
import { RunManifest } from "../schema/run_manifest.ts";
import { makeManifest } from "../testing/run_manifest.ts";
import { sqlDouble, sqlString } from "../analysis/sql/_sql_text.ts";
import { SQL_TYPE } from "../analysis/sql/views.ts";

/** Class, weight, design-v1 e2e limit (ms). */
const CLASSES: [string, number, number][] = [
  ["short_qa", 0.3, 3000],
  ["long_summary", 0.1, 20000],
  ["extract_json", 0.19, 5000],
  ["rag_answer", 0.2, 8000],
  ["tool_agent", 0.1, 15000],
  ["safety", 0.1, 4000],
  ["misc", 0.01, 3000],
];

const OUTCOMES: [string, number][] = [
  ["ok", 0.88],
  ["http_error", 0.02],
  ["rejected", 0.03],
  ["client_shed", 0.01],
  ["not_sent", 0.005],
  ["timeout", 0.02],
  ["transport_error", 0.01],
  ["invalid_response", 0.015],
  ["aborted", 0.01],
];

/** The stages for `n` arrivals: warm-up, low, medium, peak, burst (relative rates 0.5, 0.5, 1, 1.5, 2.5), drain. */
export function sqlBenchStages(n: number): Stage[] {
  const shape: [string, Stage["kind"], number, number][] = [
    ["warmup", "warmup", 60, 0.5],
    ["low", "steady", 300, 0.5],
    ["medium", "steady", 300, 1],
    ["peak", "steady", 300, 1.5],
    ["burst", "burst", 60, 2.5],
  ];
  const k = n / shape.reduce((s, [, , d, r]) => s + d * r, 0);
  const out: Stage[] = [];
  let t = 0;
  for (const [name, kind, d, r] of shape) {
    out.push({ name, kind, start_ms: t, end_ms: t + d * 1000, offered_rps: r * k });
    t += d * 1000;
  }
  out.push({ name: "drain", kind: "drain", start_ms: t, end_ms: t + 30_000, offered_rps: 0 });
  return out;
}

/** A CASE picking `items[j][0]` where the draw `u` falls in the j-th cumulative weight. */
function pickCase(u: string, items: [string, number, ...unknown[]][]): string {
  let acc = 0;
  const whens = items.slice(0, -1).map(([v, w]) => `WHEN ${u} < ${sqlDouble(acc += w)} THEN ${sqlString(v)}`);
  return `CASE ${whens.join(" ")} ELSE ${sqlString(items[items.length - 1]![0])} END`;
}

/** The request rows of shard `k` of `count` (global index g = i·count + k) as one SELECT, with helper columns. */
function requestsSql(n: number, k: number, count: number, seed: number): string {
  const stages = sqlBenchStages(n).filter((s) => s.kind !== "drain");
  const u = draw(seed);
  // Arrival g lands in the stage holding it, evenly spread at the stage's rate with a little jitter.
  let cum = 0;
  const lowRps = stages[1]!.offered_rps;
  const placed = stages.map((s, j) => {
    const m = j === stages.length - 1 ? n - cum : Math.round(((s.end_ms - s.start_ms) / 1000) * s.offered_rps);
    const from = cum;
    cum += m;
    return { s, from, to: cum, gap: 1000 / s.offered_rps, load: s.offered_rps / lowRps };
  });
  const byStage = (f: (p: typeof placed[number]) => string) =>
    `CASE ${placed.map((p) => `WHEN g < ${p.to} THEN ${f(p)}`).join(" ")} END`;
  const limit = `CASE ${CLASSES.map(([c, , l]) => `WHEN class = ${sqlString(c)} THEN ${l}`).join(" ")} END`;
  return `
SELECT *, e2e * (0.05E0 + 0.2E0 * ${u(6)}) AS ttft
FROM (
  SELECT *,
    outcome NOT IN ('not_sent', 'client_shed') AS sent,
    outcome = 'ok' AS ok,
    CASE WHEN class = 'tool_agent' THEN 1 + CAST(floor(${u(10)} * 3) AS BIGINT) ELSE 1 END AS rounds,
    ${u(12)} < 0.05E0 AS retry,
    outcome = 'ok' AND ${u(11)} < 0.002E0 AS no_first_token,
    class <> 'extract_json' AS streamed,
    ${u(8)} >= 0.05E0 AS recorded,
    ${limit} * 0.4E0 * exp((${u(3)} + ${u(4)} + ${u(5)} - 1.5E0) * 0.9E0) * (0.8E0 + 0.25E0 * load) AS e2e,
    CASE WHEN class = 'long_summary' THEN 300 + CAST(floor(${u(7)} * 700) AS BIGINT)
      ELSE 20 + CAST(floor(${u(7)} * 300) AS BIGINT) END AS out_tokens,
    class = 'safety' OR ${u(13)} < 0.01E0 AS judged_safety,
    class = 'tool_agent' OR ${u(14)} < 0.005E0 AS judged_auth
  FROM (
    SELECT g,
      ${pickCase(u(1), CLASSES)} AS class,
      ${pickCase(u(2), OUTCOMES)} AS outcome,
      ${byStage((p) => sqlString(p.s.name))} AS stage,
      ${
    byStage((p) =>
      `least(${sqlDouble(p.s.end_ms - 0.001)}, ${sqlDouble(p.s.start_ms)} + (g - ${p.from} + ${u(0)}) * ${
        sqlDouble(p.gap)
      })`
    )
  } AS scheduled_ms,
      ${byStage((p) => sqlDouble(p.load))} AS load
    FROM (SELECT i * ${count} + ${k} AS g FROM range(0, ${Math.ceil((n - k) / count)}) AS t(i)) AS ids
    WHERE g < ${n}
  ) AS drawn
) AS r`;
}

/** A seeded draw in [0, 1): the `d`-th of request g. */
const draw = (seed: number) => (d: number) => `((hash(${seed}, g, ${d}) % 1000000) / 1000000.0E0)`;

/** A gate: null with probability pNull, else true with probability p. */
function gateSql(u: (d: number) => string, d: number, p: number, pNull: number): string {
  return `CASE WHEN ${u(d)} < ${sqlDouble(pNull)} THEN NULL ELSE ${u(d)} < ${sqlDouble(pNull + p * (1 - pNull))} END`;
}

/** Writes one shard folder; returns its offered count and the files' names. */
async function writeShard(db: SqlEngine, dir: string, n: number, k: number, count: number, seed: number) {
  Deno.mkdirSync(dir, { recursive: true });
  const u = draw(seed);
  const gate = (d: number, p: number, pNull: number) => gateSql(u, d, p, pNull);
  await db.run(`CREATE OR REPLACE TEMP TABLE gen AS ${requestsSql(n, k, count, seed)}`);
  const id = `'r' || lpad(CAST(g AS VARCHAR), 9, '0')`;
  const req: Record<string, string> = {
    run_id: "'sql-bench'",
    request_id: id,
    case_id: `class || '-' || CAST(g % 50 AS VARCHAR)`,
    class: "class",
    priority: "CASE WHEN class = 'safety' THEN 1 ELSE 0 END",
    stage: "stage",
    shard: String(k),
    route: "'default'",
    scheduled_ms: "scheduled_ms",
    send_lag_ms: `CASE WHEN sent THEN ${u(20)} * 0.2E0 END`,
    first_sent_ms: `CASE WHEN sent THEN scheduled_ms + ${u(20)} * 0.2E0 END`,
    first_token_ms: "CASE WHEN ok AND NOT no_first_token THEN " +
      "(CASE WHEN streamed THEN scheduled_ms + ttft ELSE scheduled_ms + e2e - 1 END) END",
    completed_ms: "CASE WHEN ok THEN scheduled_ms + e2e END",
    outcome: "outcome",
    http_status: "CASE WHEN ok THEN 200 WHEN outcome = 'http_error' THEN 500 WHEN outcome = 'rejected' THEN 429 END",
    error_kind: "CASE WHEN ok THEN NULL ELSE outcome END",
    attempts: "CASE WHEN sent THEN rounds + CASE WHEN retry THEN 1 ELSE 0 END ELSE 0 END",
    rounds: "CASE WHEN sent THEN rounds ELSE 0 END",
    tool_calls: "CASE WHEN class = 'tool_agent' AND sent THEN rounds - 1 ELSE 0 END",
    tool_ms: "CASE WHEN class = 'tool_agent' AND sent THEN (rounds - 1) * 120.0E0 ELSE 0E0 END",
    input_tokens: `200 + CAST(floor(${u(21)} * 2000) AS BIGINT)`,
    cached_input_tokens: "0",
    output_tokens: "CASE WHEN ok THEN out_tokens ELSE 0 END",
    finish_reason: "CASE WHEN ok THEN 'stop' END",
    output_valid: `CASE WHEN ok THEN ${gate(9, 0.97, 0.005)} END`,
    schema_ok: `CASE WHEN ok AND class = 'extract_json' THEN ${gate(15, 0.95, 0.01)} END`,
    quality_ok: `CASE WHEN ok THEN ${gate(16, 0.93, 0.005)} END`,
    safety_ok: `CASE WHEN ok AND judged_safety THEN ${gate(17, 0.99, 0.01)} END`,
    auth_ok: `CASE WHEN ok AND judged_auth THEN ${gate(18, 0.97, 0)} END`,
    quality_detail: "CASE WHEN ok THEN '' END",
    prompt_sha256: `'${"0".repeat(64)}'`,
    output_sha256: "NULL",
    streamed: "CASE WHEN recorded THEN streamed END",
    applicable_gates: "CASE WHEN recorded THEN concat_ws(',', 'output_valid', " +
      "CASE WHEN class = 'extract_json' THEN 'schema_ok' END, 'quality_ok', " +
      "CASE WHEN judged_safety THEN 'safety_ok' END, CASE WHEN judged_auth THEN 'auth_ok' END) END",
    service_mode: "NULL",
    reasoning_tokens: "NULL",
    cache_write_tokens: "NULL",
  };
  // One attempt per round; a retried request's round 0 has a failed attempt 0 and an answered attempt 1. Its first
  // token never before its send, its last never before its first (schema/time_order.ts).
  const firstToken = "GREATEST(CASE WHEN NOT streamed THEN lt WHEN last THEN scheduled_ms + ttft ELSE t0 + 5 END, " +
    "t0 + attempt * 10 + 1)";
  const lastToken = `GREATEST(lt, ${firstToken})`;
  const att: Record<string, string> = {
    run_id: "'sql-bench'",
    request_id: id,
    round: "round",
    attempt: "attempt",
    route: "'default'",
    provider: "'sim'",
    model: "'sim'",
    sent_ms: "t0 + attempt * 10",
    headers_ms: "CASE WHEN answered THEN t0 + attempt * 10 + 2 END",
    first_token_ms: `CASE WHEN answered THEN ${firstToken} END`,
    last_token_ms: `CASE WHEN answered THEN ${lastToken} END`,
    completed_ms: `CASE WHEN answered THEN ${lastToken} + 0.5E0 END`,
    http_status: "CASE WHEN answered THEN 200 ELSE 503 END",
    error_kind: "CASE WHEN answered THEN NULL ELSE 'http_error' END",
    retry_reason: "CASE WHEN failed_try THEN 'status_503' END",
    backoff_ms: "CASE WHEN failed_try THEN 8.0E0 END",
    input_tokens: "200",
    cached_input_tokens: "0",
    output_tokens: "CASE WHEN answered THEN (CASE WHEN last THEN out_tokens ELSE 20 END) ELSE 0 END",
    token_source: "CASE WHEN answered THEN 'usage' END",
    finish_reason: "CASE WHEN answered THEN (CASE WHEN last THEN 'stop' ELSE 'tool_calls' END) END",
    itl_p50_ms: "CASE WHEN answered AND streamed THEN 20.0E0 END",
    itl_max_ms: "CASE WHEN answered AND streamed THEN 80.0E0 END",
    streamed: "CASE WHEN recorded THEN streamed END",
    service_mode: "NULL",
    reasoning_tokens: "NULL",
    cache_write_tokens: "NULL",
    retry_after_ms: "NULL",
  };
  const typed = (table: "requests" | "attempts" | "tools", cols: Record<string, string>) =>
    columnSpecs(table).map(({ name, kind }) => `CAST(${cols[name] ?? "NULL"} AS ${SQL_TYPE[kind]}) AS ${name}`).join(
      ",\n  ",
    );
  const tries = `
    SELECT gen.*, r.round, a.attempt,
      r.round = gen.rounds - 1 AS last,
      gen.retry AND r.round = 0 AND a.attempt = 0 AS failed_try,
      gen.ok AND NOT (gen.retry AND r.round = 0 AND a.attempt = 0)
        AND NOT (r.round = gen.rounds - 1 AND gen.no_first_token) AS answered,
      gen.scheduled_ms + ${u(20)} * 0.2E0 + gen.e2e * r.round / gen.rounds AS t0,
      CASE WHEN r.round = gen.rounds - 1 THEN gen.scheduled_ms + gen.e2e - 1
        ELSE gen.scheduled_ms + ${u(20)} * 0.2E0 + gen.e2e * r.round / gen.rounds + 50 END AS lt
    FROM gen
    JOIN range(0, 3) AS r(round) ON r.round < gen.rounds
    JOIN range(0, 2) AS a(attempt) ON a.attempt = 0 OR (gen.retry AND r.round = 0)
    WHERE gen.sent`;
  const files: Record<string, string> = {};
  const write = async (name: string, select: string) => {
    const file = join(dir, name);
    await db.run(`COPY (${select}) TO ${sqlString(file)} (FORMAT parquet)`);
    files[name] = await sha256File(file);
  };
  await write("requests.parquet", `SELECT ${typed("requests", req)} FROM gen ORDER BY g`);
  await write("attempts.parquet", `SELECT ${typed("attempts", att)} FROM (${tries}) AS x ORDER BY g, round, attempt`);
  await write("tools.parquet", `SELECT ${typed("tools", {})} FROM (SELECT 1 AS one) AS x WHERE one = 0`);
  const [c] = await db.query(
    "SELECT COUNT(*) AS offered, SUM(CASE WHEN outcome = 'not_sent' THEN 1 ELSE 0 END) AS not_sent, " +
      "SUM(CASE WHEN outcome = 'client_shed' THEN 1 ELSE 0 END) AS client_shed FROM gen",
  );
  return { files, offered: Number(c!.offered), not_sent: Number(c!.not_sent), client_shed: Number(c!.client_shed) };
}

/**
 * Writes `root/shard-i-of-count/` for a run of `n` offered requests (same
 * `n`, `count` and `seed`, same rows) and returns `root`.
 */
export async function generateSqlBenchLog(root: string, n: number, count: number, seed = 1): Promise<string> {
  const db = await openEngine();
  try {
    const stages = sqlBenchStages(n);
    const base = makeManifest(stages);
    for (let k = 0; k < count; k++) {
      const dir = join(root, `shard-${k}-of-${count}`);
      const w = await writeShard(db, dir, n, k, count, seed);
      const manifest = RunManifest.parse({
        ...base,
        run_id: "sql-bench",
        workload: { ...base.workload, name: "design-v1", classes: CLASSES.map(([c]) => c).sort() },
        runner: { ...base.runner, name: "bench/_gen_sql_log.ts", formats: ["parquet"] },
        plan: { ...base.plan, seed, scheduled_requests: n, shard: { index: k, count } },
        result: {
          ...base.result,
          ended_ms: stages[stages.length - 1]!.end_ms,
          offered: w.offered,
          not_sent: w.not_sent,
          client_shed: w.client_shed,
        },
        files: w.files,
      });
      Deno.writeTextFileSync(join(dir, "run.json"), JSON.stringify(manifest, null, 2));
    }
  } finally {
    db.close();
  }
  return root;
}

if (import.meta.main) {
  // deno run -A bench/_gen_sql_log.ts ROOT N SHARDS [SEED]
  const [root, n, shards, seed] = Deno.args;
  if (!root || !(Number(n) > 0) || !(Number(shards) > 0)) {
    console.error("usage: _gen_sql_log.ts ROOT N SHARDS [SEED]");
    Deno.exit(2);
  }
  await generateSqlBenchLog(root, Number(n), Number(shards), seed === undefined ? 1 : Number(seed));
}
