/**
 * Seeded random logs for the SQL-vs-polars equivalence tests: every outcome,
 * gates true/false/null, applicability recorded or not, streaming recorded or
 * not (1.0 inference), whole-body answers, unanswered attempts and rounds,
 * missing token and completion times, degraded service modes (declared,
 * undeclared, malformed, none), a class no policy names, and times on a grid
 * so ties with limits and stage edges happen. Written as Parquet (the SQL
 * path reads Parquet) with run.json hashes filled, as one folder or as
 * `shard-i-of-N/` folders.
 *
 * @module
 */
import pl from "nodejs-polars";
import { join } from "node:path";
import { tableDtypes } from "../../../analysis/run/_dtypes.ts";
import { loadRun } from "../../../analysis/run/load_run.ts";
import {
  type AttemptRow,
  COLUMNS,
  columnsAt,
  EPOCH_COLUMNS,
  OUTCOMES,
  type RequestRow,
} from "../../../schema/events.ts";
import type { Stage } from "../../../schema/plan.ts";
import type { RunManifest } from "../../../schema/run_manifest.ts";
import { GATES } from "../../../schema/slo.ts";
import { seededUniform } from "../../../testing/seeded.ts";
import { asShard, att, makeManifest, req, sha256, writeManifest } from "../_fixture.ts";

export const STAGES: Stage[] = [
  { name: "w", kind: "warmup", start_ms: 0, end_ms: 2000, offered_rps: 1 },
  { name: "s", kind: "steady", start_ms: 2000, end_ms: 6000, offered_rps: 1 },
  { name: "b", kind: "burst", start_ms: 6000, end_ms: 8000, offered_rps: 1 },
  { name: "d", kind: "drain", start_ms: 8000, end_ms: 9000, offered_rps: 0 },
];

/** The workload's classes: `z` has no request (an empty class), `x` no policy names (it takes the default). */
export const CLASSES = ["a", "b", "c", "x", "z"];

/** One run's rows. */
export interface RandomLog {
  requests: RequestRow[];
  attempts: AttemptRow[];
}

/** `n` random requests and their attempts (same seed, same rows). */
export function randomLog(seed: number, n: number): RandomLog {
  const r = seededUniform(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const gate = () => pick([true, true, true, false, null]);
  const requests: RequestRow[] = [];
  const attempts: AttemptRow[] = [];
  for (let i = 0; i < n; i++) {
    const t = Math.round(r() * 900) * 10;
    const stage = STAGES.find((s) => t >= s.start_ms && t < s.end_ms)?.name ?? "d";
    const outcome = r() < 0.6 ? "ok" : pick(OUTCOMES);
    const id = `r${seed}-${i}`;
    const ok = outcome === "ok";
    const ttft = Math.round(r() * 60) * 10;
    const e2e = ttft + Math.round(r() * 150) * 10;
    const streamed = pick([true, true, false, null]);
    const wholeBody = streamed === false || (streamed === null && r() < 0.5);
    requests.push(req({
      request_id: id,
      class: pick(["a", "a", "b", "c", "x"]),
      stage,
      scheduled_ms: t,
      outcome,
      error_kind: ok ? null : outcome,
      first_token_ms: ok && r() < 0.95 ? t + ttft : null,
      completed_ms: ok && r() < 0.97 ? t + e2e : null,
      output_valid: gate(),
      schema_ok: gate(),
      quality_ok: gate(),
      safety_ok: gate(),
      auth_ok: gate(),
      streamed,
      applicable_gates: r() < 0.25 ? null : GATES.filter(() => r() < 0.6).join(","),
      service_mode: r() < 0.7 ? null : pick(["short", "cached", "other", "!malformed"]),
    }));
    if (outcome === "not_sent" || outcome === "client_shed") continue;
    const rounds = 1 + Math.floor(r() * 2);
    for (let round = 0; round < rounds; round++) {
      const tries = 1 + Math.floor(r() * 3);
      for (let a = 0; a < tries; a++) {
        const answered = r() < 0.7;
        const ft = t + ttft + round * 100 + a * 10;
        const span = wholeBody ? 0 : Math.round(r() * 200) * 5;
        attempts.push(att({
          request_id: id,
          round,
          attempt: a,
          sent_ms: t,
          first_token_ms: answered ? ft : null,
          last_token_ms: answered ? ft + span : null,
          output_tokens: answered ? Math.floor(r() * 12) : 0,
          itl_p50_ms: answered && span > 0 ? 5 : null,
          streamed,
        }));
      }
    }
  }
  return { requests, attempts };
}

/** The manifest of a random log's run. */
export function randomManifest(over: Partial<RunManifest> = {}): RunManifest {
  const base = makeManifest(STAGES);
  return { ...base, run_id: "random-run", workload: { ...base.workload, classes: CLASSES }, ...over };
}

/** A table's frame with the columns of contract minor `minor`; the epoch column (1.6) is `epochMs` + its anchor. */
function frame(table: "requests" | "attempts", rows: readonly object[], minor: number, epochMs: number): pl.DataFrame {
  const dtypes = tableDtypes(table);
  const { name, of } = EPOCH_COLUMNS[table];
  const value = (x: Record<string, unknown>, c: string) => c === name ? epochMs + (x[of] as number) : x[c] ?? null;
  return pl.DataFrame(
    columnsAt(table, minor).map((c) =>
      pl.Series(c, rows.map((x) => value(x as Record<string, unknown>, c)), dtypes[c])
    ),
  );
}

/**
 * Writes one run folder of Parquet tables (requests, attempts and an empty
 * tools table, each with the columns of contract minor `minor`) and run.json
 * with their hashes; every row gets the manifest's run_id.
 */
export function writeParquetRun(dir: string, manifest: RunManifest, log: RandomLog, minor = manifest.schema_minor) {
  Deno.mkdirSync(dir, { recursive: true });
  const files: Record<string, string> = {};
  const own = (rows: readonly object[]) => rows.map((x) => ({ ...x, run_id: manifest.run_id }));
  const tables = { requests: own(log.requests), attempts: own(log.attempts), tools: [] as object[] };
  for (const [table, rows] of Object.entries(tables)) {
    const name = `${table}.parquet`;
    const df = table === "tools"
      ? pl.DataFrame(columnsAt("tools", minor).map((c) => pl.Series(c, [], tableDtypes("tools")[c])))
      : frame(table as "requests" | "attempts", rows, minor, Date.parse(manifest.epoch_iso));
    df.writeParquet(join(dir, name));
    files[name] = sha256(join(dir, name));
  }
  writeManifest(dir, { ...manifest, schema_minor: minor, files });
  return dir;
}

/** Writes the log as `count` shard folders `root/shard-i-of-count/` (request k in shard k mod count). */
export function writeShardedRun(root: string, manifest: RunManifest, log: RandomLog, count: number): string {
  for (let i = 0; i < count; i++) {
    const ids = new Set(log.requests.filter((_, k) => k % count === i).map((q) => q.request_id));
    writeParquetRun(join(root, `shard-${i}-of-${count}`), asShard(manifest, i, count), {
      requests: log.requests.filter((q) => ids.has(q.request_id)).map((q) => ({ ...q, shard: i })),
      attempts: log.attempts.filter((a) => ids.has(a.request_id)),
    });
  }
  return root;
}

/**
 * Writes the log hive-partitioned: `root/requests/shard=k/part.parquet` and
 * `root/attempts/shard=k/part.parquet` (requests split by `k mod parts`), with
 * run.json listing every part's sha256 under its relative path.
 */
export function writeHiveRun(root: string, manifest: RunManifest, log: RandomLog, parts: number): string {
  const files: Record<string, string> = {};
  for (let k = 0; k < parts; k++) {
    const ids = new Set(log.requests.filter((_, i) => i % parts === k).map((q) => q.request_id));
    const tables = {
      requests: log.requests.filter((q) => ids.has(q.request_id)).map((q) => ({ ...q, shard: k })),
      attempts: log.attempts.filter((a) => ids.has(a.request_id)),
    };
    for (const [table, rows] of Object.entries(tables) as ["requests" | "attempts", object[]][]) {
      const name = `${table}/shard=${k}/part.parquet`;
      Deno.mkdirSync(join(root, table, `shard=${k}`), { recursive: true });
      const own = rows.map((x) => ({ ...x, run_id: manifest.run_id }));
      frame(table, own, manifest.schema_minor, Date.parse(manifest.epoch_iso)).writeParquet(join(root, name));
      files[name] = sha256(join(root, name));
    }
  }
  writeManifest(root, { ...manifest, files });
  return root;
}

/**
 * A copy of a run folder (CSV or Parquet, one folder) as Parquet in `out`:
 * each table read by `loadRun` (unescaped, typed) and written with the
 * columns of the run's contract minor version; run.json's hashes updated.
 */
export async function asParquet(src: string, out: string): Promise<string> {
  const run = await loadRun(src, { allowPartialShards: true, onWarning: () => {} });
  const m = JSON.parse(Deno.readTextFileSync(join(src, "run.json")));
  const minor = run.manifest.schema_minor;
  Deno.mkdirSync(out, { recursive: true });
  const files: Record<string, string> = {};
  for (const table of ["requests", "attempts", "tools"] as const) {
    const cols = columnsAt(table, minor).filter((c) => (COLUMNS[table] as readonly string[]).includes(c));
    run[table].select(...cols).writeParquet(join(out, `${table}.parquet`));
    files[`${table}.parquet`] = sha256(join(out, `${table}.parquet`));
  }
  writeManifest(out, { ...m, files });
  return out;
}
