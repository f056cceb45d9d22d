/**
 * A seeded generator of a large, realistic run folder for the analysis
 * benchmark: run.json (valid `RunManifest`, file hashes filled) plus
 * requests/attempts/tools as Parquet with the contract's columns and dtypes,
 * written with nodejs-polars. Classes, stages and gates follow the design-v1
 * demo; outcomes, latencies and gates are drawn so every failure reason occurs.
 *
 * @module
 */
import pl from "nodejs-polars";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { tableDtypes } from "../analysis/run/_dtypes.ts";
import {
  type AttemptRow,
  COLUMNS,
  EPOCH_COLUMNS,
  type Outcome,
  type RequestRow,
  type TableName,
  type ToolRow,
} from "../schema/events.ts";
import { RunManifest } from "../schema/run_manifest.ts";
import type { Stage } from "../schema/plan.ts";
import { makeManifest } from "../testing/run_manifest.ts";
import { seededUniform } from "../testing/seeded.ts";

/** Class, weight and its design-v1 e2e limit (latencies are drawn around it so some miss). */
const CLASSES: [string, number, number][] = [
  ["short_qa", 0.3, 3000],
  ["long_summary", 0.1, 20000],
  ["extract_json", 0.19, 5000],
  ["rag_answer", 0.2, 8000],
  ["tool_agent", 0.1, 15000],
  ["safety", 0.1, 4000],
  ["misc", 0.01, 3000], // not in design-v1: takes the policy's default
];

const OUTCOME_WEIGHTS: [Outcome, number][] = [
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

function pick<T>(items: [T, number, ...unknown[]][], u: number): T {
  let acc = 0;
  for (const it of items) {
    acc += it[1];
    if (u < acc) return it[0];
  }
  return items[items.length - 1]![0];
}

/** A gate drawn true with probability p, else false, or null (not evaluated) with probability pNull. */
function gate(r: () => number, p: number, pNull: number): boolean | null {
  const u = r();
  return u < pNull ? null : u < pNull + p * (1 - pNull) ? true : false;
}

/** The stages of the generated run: warm-up, low, medium, peak, a burst and a drain, scaled to `n` arrivals. */
export function benchStages(n: number): Stage[] {
  const shape: [string, Stage["kind"], number, number][] = [
    ["warmup", "warmup", 60, 0.5],
    ["low", "steady", 300, 0.5],
    ["medium", "steady", 300, 1],
    ["peak", "steady", 300, 1.5],
    ["burst", "burst", 60, 2.5],
  ];
  const weight = shape.reduce((s, [, , d, r]) => s + d * r, 0);
  const k = n / weight; // requests per (second × relative rate)
  const out: Stage[] = [];
  let t = 0;
  for (const [name, kind, d, r] of shape) {
    out.push({ name, kind, start_ms: t, end_ms: t + d * 1000, offered_rps: r * k });
    t += d * 1000;
  }
  out.push({ name: "drain", kind: "drain", start_ms: t, end_ms: t + 30_000, offered_rps: 0 });
  return out;
}

type Col = (number | null)[] | (boolean | null)[] | (string | null)[];

/** makeManifest's epoch_iso (2026-01-01T00:00:00.000Z) in ms since the Unix epoch: each epoch column's base (1.6). */
const EPOCH_MS = Date.parse(makeManifest([]).epoch_iso);

function frame(table: Exclude<TableName, "server">, cols: Record<string, Col>): pl.DataFrame {
  const dtypes = tableDtypes(table);
  const { name, of } = EPOCH_COLUMNS[table];
  return pl.DataFrame(COLUMNS[table].map((c) => {
    // The epoch column is the anchor + run.json epoch_iso, as the writers compute it.
    const v = c === name ? (cols[of] as number[]).map((t) => EPOCH_MS + t) : cols[c];
    if (!v) throw new Error(`_gen_log: column ${table}.${c} not generated`);
    return pl.Series(c, v, dtypes[c]);
  }));
}

function sha256File(file: string): string {
  return createHash("sha256").update(Deno.readFileSync(file)).digest("hex");
}

/** Receives the generated rows, table by table, in generation order. */
export interface RowSink {
  requests(row: RequestRow): void;
  attempts(row: AttemptRow): void;
  tools(row: ToolRow): void;
}

/**
 * Draws the rows of a run of `n` offered requests (same `n` and `seed`, same
 * rows) and hands each to `emit` as it is made, holding none: the rows of
 * {@linkcode generateRunLog}, for writers of any format.
 */
export function generateRows(n: number, seed: number, emit: RowSink): Stage[] {
  const r = seededUniform(seed);
  const stages = benchStages(n);
  const arrival = stages.filter((s) => s.kind !== "drain");
  const push = (table: "attempts" | "tools", row: Record<string, number | boolean | string | null>) =>
    (emit[table] as (row: unknown) => void)(row);

  let si = 0;
  let inStage = 0;
  for (let i = 0; i < n; i++) {
    // Arrivals evenly spread within each stage at its rate, with a little jitter.
    let st = arrival[si]!;
    const perStage = Math.round(((st.end_ms - st.start_ms) / 1000) * st.offered_rps);
    if (inStage >= perStage && si < arrival.length - 1) {
      si++;
      inStage = 0;
      st = arrival[si]!;
    }
    const gap = 1000 / st.offered_rps;
    const scheduled = Math.min(st.end_ms - 0.001, st.start_ms + (inStage + r()) * gap);
    inStage++;
    const [cls, , limit] = pick(CLASSES.map((c) => [c, c[1]] as [typeof c, number]), r());
    const outcome = pick(OUTCOME_WEIGHTS, r());
    const id = `r${i.toString().padStart(7, "0")}`;
    const sent = outcome !== "not_sent" && outcome !== "client_shed";
    const ok = outcome === "ok";
    const rounds = cls === "tool_agent" ? 1 + Math.floor(r() * 3) : 1;
    // e2e around 0.4 × limit, log-normal-ish; load stretches it (peak and burst miss more).
    const load = st.offered_rps / arrival[1]!.offered_rps;
    const e2e = limit * 0.4 * Math.exp((r() + r() + r() - 1.5) * 0.9) * (0.8 + 0.25 * load);
    const ttft = e2e * (0.05 + 0.2 * r());
    const outTok = cls === "long_summary" ? 300 + Math.floor(r() * 700) : 20 + Math.floor(r() * 300);
    const lag = sent ? r() * 0.2 : null;
    const noFirstToken = ok && r() < 0.002;
    // extract_json is not streamed (as design-v1 sends it); 5 % of requests do not record streaming or applicable gates
    // (as a 1.0 log reads), so the three goodput paths also meet the 1.0 inference and the 1.0 gate rule.
    const streamed = cls !== "extract_json";
    const recorded = r() >= 0.05;
    const q: Record<string, number | boolean | string | null> = {};
    q.run_id = "bench-run";
    q.request_id = id;
    q.case_id = `${cls}-${Math.floor(r() * 50)}`;
    q.class = cls;
    q.priority = cls === "safety" ? 1 : 0;
    q.stage = st.name;
    q.shard = 0;
    q.route = "default";
    q.scheduled_ms = scheduled;
    q.send_lag_ms = lag;
    q.first_sent_ms = lag === null ? null : scheduled + lag;
    q.first_token_ms = ok && !noFirstToken ? (streamed ? scheduled + ttft : scheduled + e2e - 1) : null;
    q.completed_ms = ok ? scheduled + e2e : null;
    q.outcome = outcome;
    q.http_status = ok ? 200 : outcome === "http_error" ? 500 : outcome === "rejected" ? 429 : null;
    q.error_kind = ok ? null : outcome;
    q.attempts = sent ? rounds : 0;
    q.rounds = sent ? rounds : 0;
    q.tool_calls = cls === "tool_agent" && sent ? rounds - 1 : 0;
    q.tool_ms = cls === "tool_agent" && sent ? (rounds - 1) * 120 : 0;
    q.input_tokens = 200 + Math.floor(r() * 2000);
    q.cached_input_tokens = 0;
    q.output_tokens = ok ? outTok : 0;
    q.finish_reason = ok ? "stop" : null;
    q.output_valid = ok ? gate(r, 0.97, 0.005) : null;
    q.schema_ok = ok && cls === "extract_json" ? gate(r, 0.95, 0.01) : null;
    q.quality_ok = ok ? gate(r, 0.93, 0.005) : null;
    // safety_ok and auth_ok are judged where the case defines them; a few other answers are judged anyway (a planted
    // canary, a stray tool call), and then the gate is applicable.
    const judgedSafety = cls === "safety" || r() < 0.01, judgedAuth = cls === "tool_agent" || r() < 0.005;
    q.safety_ok = ok && judgedSafety ? gate(r, 0.99, cls === "safety" ? 0 : 0.01) : null;
    q.auth_ok = ok && judgedAuth ? gate(r, cls === "tool_agent" ? 0.97 : 0.5, 0) : null;
    q.quality_detail = ok ? "" : null;
    q.prompt_sha256 = "0".repeat(64);
    q.output_sha256 = null;
    const applicable = ["output_valid", cls === "extract_json" && "schema_ok", "quality_ok"]
      .concat(judgedSafety ? ["safety_ok"] : [], judgedAuth ? ["auth_ok"] : []).filter(Boolean).join(",");
    q.streamed = recorded ? streamed : null;
    q.applicable_gates = recorded ? applicable : null;
    q.service_mode = null;
    q.reasoning_tokens = null;
    q.cache_write_tokens = null;
    emit.requests(q as RequestRow);
    if (!sent) continue;
    // One attempt per round (5 % get a failed first try and a retry); the last attempt carries the tokens.
    for (let round = 0; round < rounds; round++) {
      const last = round === rounds - 1;
      const retry = r() < 0.05;
      const t0 = scheduled + (lag ?? 0) + (e2e * round) / rounds;
      for (let a = 0; a <= (retry ? 1 : 0); a++) {
        const answered = ok && (!retry || a === 1) && !(last && noFirstToken);
        // A non-streamed answer's tokens all arrive with its body, without inter-token gaps.
        // Never before the attempt's send (the log's times run forwards within a row: schema/time_order.ts).
        const sentAt = t0 + a * 10;
        const ft = Math.max(
          !streamed ? (last ? scheduled + e2e - 1 : t0 + 50) : last ? scheduled + ttft : t0 + 5,
          sentAt + 1,
        );
        const lt = Math.max(last ? scheduled + e2e - 1 : t0 + 50, ft);
        push("attempts", {
          run_id: "bench-run",
          request_id: id,
          round,
          attempt: a,
          route: "default",
          provider: "sim",
          model: "sim",
          sent_ms: sentAt,
          headers_ms: answered ? sentAt + 2 : null,
          first_token_ms: answered ? ft : null,
          last_token_ms: answered ? lt : null,
          completed_ms: answered ? lt + 0.5 : null,
          http_status: answered ? 200 : 503,
          error_kind: answered ? null : "http_error",
          retry_reason: retry && a === 0 ? "status_503" : null,
          backoff_ms: retry && a === 0 ? 8 : null,
          input_tokens: 200,
          cached_input_tokens: 0,
          output_tokens: answered ? (last ? outTok : 20) : 0,
          token_source: answered ? "usage" : null,
          finish_reason: answered ? (last ? "stop" : "tool_calls") : null,
          itl_p50_ms: answered && streamed ? 20 : null,
          itl_max_ms: answered && streamed ? 80 : null,
          streamed: recorded ? streamed : null,
          service_mode: null,
          reasoning_tokens: null,
          cache_write_tokens: null,
          retry_after_ms: null,
          service_tier_requested: null,
          service_tier: null,
          rl_limit_requests: null,
          rl_remaining_requests: null,
          rl_limit_tokens: null,
          rl_remaining_tokens: null,
          rl_reset_requests_ms: null,
          rl_reset_tokens_ms: null,
        });
      }
      if (cls === "tool_agent" && !last || cls === "rag_answer" && round === 0) {
        const tool = cls === "rag_answer" ? "retrieval" : "search";
        push("tools", {
          run_id: "bench-run",
          request_id: id,
          round,
          tool,
          started_ms: t0,
          ended_ms: t0 + 120,
          ok: r() < 0.98,
          error_kind: null,
        });
      }
    }
  }

  return stages;
}

/**
 * Writes a run folder of `n` offered requests into `dir` (created) and
 * returns `dir`. Same `n` and `seed` give the same files.
 */
export function generateRunLog(dir: string, n: number, seed = 1): string {
  const cols = (table: Exclude<TableName, "server">) =>
    Object.fromEntries(COLUMNS[table].map((c) => [c, [] as unknown[]])) as Record<string, Col>;
  const R = cols("requests"), A = cols("attempts"), T = cols("tools");
  const push = (t: Record<string, Col>) => (row: object) => {
    for (const [k, v] of Object.entries(row)) (t[k] as unknown[]).push(v);
  };
  const stages = generateRows(n, seed, { requests: push(R), attempts: push(A), tools: push(T) });
  Deno.mkdirSync(dir, { recursive: true });
  const files: Record<string, string> = {};
  for (const [table, cols] of [["requests", R], ["attempts", A], ["tools", T]] as const) {
    const file = join(dir, `${table}.parquet`);
    frame(table, cols).writeParquet(file);
    files[`${table}.parquet`] = sha256File(file);
  }
  const outcomes = R.outcome as string[];
  const count = (o: string) => outcomes.reduce((s, x) => s + (x === o ? 1 : 0), 0);
  const base = makeManifest(stages);
  const manifest = RunManifest.parse({
    ...base,
    run_id: "bench-run",
    workload: { ...base.workload, classes: CLASSES.map(([c]) => c).sort() },
    runner: { ...base.runner, name: "bench/_gen_log.ts", formats: ["parquet"] },
    plan: { ...base.plan, seed, scheduled_requests: n },
    result: {
      ...base.result,
      ended_ms: stages[stages.length - 1]!.end_ms,
      offered: n,
      not_sent: count("not_sent"),
      client_shed: count("client_shed"),
    },
    files,
  });
  Deno.writeTextFileSync(join(dir, "run.json"), JSON.stringify(manifest, null, 2));
  return dir;
}

if (import.meta.main) {
  // CLI, run apart so the generator's memory is not the bench's:
  //   deno run -A bench/_gen_log.ts DIR N [SEED]
  //   deno run -A bench/_gen_log.ts --replicate SRC ROOT K
  if (Deno.args[0] === "--replicate") {
    const [, src, root, k] = Deno.args;
    if (!src || !root || !(Number(k) > 0)) {
      console.error("usage: _gen_log.ts --replicate SRC ROOT K");
      Deno.exit(2);
    }
    replicateShards(src, root, Number(k));
  } else {
    const [dir, n, seed] = Deno.args;
    if (!dir || !(Number(n) > 0)) {
      console.error("usage: _gen_log.ts DIR N [SEED]");
      Deno.exit(2);
    }
    generateRunLog(dir, Number(n), seed === undefined ? 1 : Number(seed));
  }
}

/**
 * Writes `count` shard folders `root/shard-k-of-count/` of one logical run,
 * each a copy of the run in `src` with its request ids prefixed `s<k>-` (so
 * ids stay unique across shards) and `shard` = k: a log `count` times as
 * large in seconds, rewritten by polars scans, for the scale part of the bench.
 */
export function replicateShards(src: string, root: string, count: number): string {
  const base = RunManifest.parse(JSON.parse(Deno.readTextFileSync(join(src, "run.json"))));
  for (let k = 0; k < count; k++) {
    const dir = join(root, `shard-${k}-of-${count}`);
    Deno.mkdirSync(dir, { recursive: true });
    const files: Record<string, string> = {};
    for (const table of ["requests", "attempts", "tools"] as const) {
      const id = pl.concatString([pl.lit(`s${k}-`), pl.col("request_id")], "").alias("request_id");
      const extra = table === "requests" ? [pl.lit(k).cast(pl.Int64).alias("shard")] : [];
      const file = join(dir, `${table}.parquet`);
      pl.readParquet(join(src, `${table}.parquet`)).withColumns(id, ...extra).writeParquet(file);
      files[`${table}.parquet`] = sha256File(file);
    }
    const manifest = { ...base, plan: { ...base.plan, shard: { index: k, count } }, files };
    Deno.writeTextFileSync(join(dir, "run.json"), JSON.stringify(RunManifest.parse(manifest), null, 2));
  }
  return root;
}
