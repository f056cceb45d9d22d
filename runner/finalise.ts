import { createHash } from "node:crypto";
import { join } from "node:path";
import process from "node:process";
import type { CpuContention, RequestRow, ServerRow } from "../schema/mod.ts";
import { TABLES } from "../schema/events.ts";
import { RunManifest } from "../schema/run_manifest.ts";
import { SimTimelineRow } from "../schema/sim_profile.ts";
import { csvSchemaFile } from "../schema/log_metadata.ts";
import { oneShot } from "../schema/load.ts";
import { epochMsOf } from "../schema/events.ts";
import type { Clock } from "./clock.ts";
import { clientLimitCause } from "./cpu_contention.ts";
import { type RequestSummary, RequestTally } from "./request_tally.ts";
import { CsvSink } from "./sinks/csv_sink.ts";
import { writeCsvSchema } from "./sinks/csv_schema.ts";
import { timelineUrl } from "./timeline_probe.ts";
import { releaseRoom } from "./disk_reserve.ts";
import type { LogWriteFailure } from "../schema/run_manifest.ts";
import { readOwnProc } from "./cpu_contention.ts";

export interface FinaliseOptions {
  clock: Clock;
  /** Every route's chat URL; the timeline is fetched once per distinct server. */
  targets: readonly { route: string; url: URL }[];
  serverTimeline: boolean;
  /** The server table's sink when the run polled its targets' metrics (still open): sim rows join it, then it closes. */
  serverSink?: CsvSink<"server"> | null;
  interrupted: boolean;
  retries: number;
  retryBudgetExhausted: number;
  retryPastDeadline: number;
  /** A fixed send-lag bar the user set (`--lag-limit-ms`); null or absent: none (runner/request_tally.ts). */
  lagLimitMs?: number | null | undefined;
  /** The machine's CPU contention over the run (runner/cpu_contention.ts); null: unknown here; absent: not measured. */
  contention?: CpuContention | null;
  /**
   * The log write that stopped the run (a full disk; runner/execute.ts), or null/absent. Then only what is on disk
   * is finalised: no server timeline is fetched, no Parquet written, the CSV files kept whatever the formats, the
   * row count not held to the schedule, and run.json says `write_failed` with the failure.
   */
  writeFailure?: LogWriteFailure | null;
  /**
   * Every requests row the run appended, tallied as it was written (runner/execute.ts). Used instead of reading
   * requests.csv back when no Parquet is written and every write succeeded; absent: the file is read.
   */
  requestTally?: RequestTally | null;
}

/** Read size of the file hashes: one buffer of this size, reused. */
const HASH_CHUNK = 8 << 20;

/**
 * Ends a run: copies the target's timeline (when it has one), converts the
 * logs to Parquet if asked (each file with its run_id, epoch and time units
 * in its metadata), writes each kept CSV's schema sidecar (a CSV not kept
 * loses its sidecar too), records the client verdict and the sha256 of
 * every file in run.json. The client verdict comes from the rows tallied as
 * the run wrote them (`requestTally`) unless the requests log is read anyway.
 * Memory stays bounded whatever the run's size: each
 * log is read at most once, in batches written as Parquet row groups
 * (runner/sinks/parquet_writer.ts `csvToParquet`), the requests table kept
 * only as counts and send lags (runner/request_tally.ts), the files hashed
 * in 8 MB reads. Returns the finished manifest and the requests in counts.
 */
export async function finaliseRun(
  dir: string,
  manifest: RunManifest,
  o: FinaliseOptions,
): Promise<{ manifest: RunManifest; summary: RequestSummary }> {
  const endedMs = o.clock.now();
  const failed = o.writeFailure ?? null;
  const sink = o.serverSink ?? null;
  if (failed) sink?.seal();
  const dropped = o.serverTimeline && !failed
    ? await copyServerTimelines(dir, o.targets, {
      epochUnixMs: o.clock.epochUnixMs,
      epochIso: manifest.epoch_iso,
      endedMs,
      runId: manifest.run_id,
      sink,
    })
    : 0;
  sink?.close();

  const formats = manifest.runner.formats;
  const parquet = formats.includes("parquet") && !failed;
  const identity = { run_id: manifest.run_id, epoch_iso: manifest.epoch_iso };
  // The rows tallied as the run wrote them, when all reached the file and none is read for Parquet; else one pass
  // over requests.csv: validated, tallied and (if asked) written as Parquet.
  const written = o.requestTally && !parquet && !failed ? o.requestTally : null;
  const tally = written ?? new RequestTally();
  const onRows = (rows: readonly RequestRow[]) => tally.add(rows);
  // The CSV reader and the Parquet writer are loaded only by a run that needs them (they cost start-up CPU).
  const csvToParquet = parquet ? (await import("./sinks/parquet_writer.ts")).csvToParquet : null;
  if (csvToParquet) await csvToParquet(dir, "requests", { onRows, identity });
  else if (!written) {
    const { readLogCsvBatches } = await import("./sinks/csv_read_batches.ts");
    for await (const rows of readLogCsvBatches(join(dir, "requests.csv"), "requests")) {
      onRows(rows);
    }
  }
  const summary = tally.summary();
  if (o.lagLimitMs != null) manifest.runner.lag_limit_ms = o.lagLimitMs;
  manifest.result = {
    ...verdictWithCause(
      tally.verdict({
        // A closed loop has no planned arrivals, so no gap to judge the lag against.
        stages: manifest.plan.mode === "open" ? manifest.stages : [],
        lagLimitMs: o.lagLimitMs ?? null,
      }),
      o.contention,
    ),
    status: failed ? "write_failed" : o.interrupted ? "interrupted" : "complete",
    ended_ms: endedMs,
    retries: o.retries,
    retry_budget_exhausted: o.retryBudgetExhausted,
    retry_past_deadline: o.retryPastDeadline,
    ...ownUsage(),
    // Set by a sweep's stop rule during the run.
    ...(manifest.result.stopped_by === undefined ? {} : { stopped_by: manifest.result.stopped_by }),
    ...(manifest.result.stopped_by_signal === undefined
      ? {}
      : { stopped_by_signal: manifest.result.stopped_by_signal }),
    ...(dropped ? { server_rows_dropped: dropped } : {}),
    ...(failed ? { write_error: failed } : {}),
  };
  if (!failed && manifest.plan.mode === "open" && summary.offered !== manifest.plan.scheduled_requests) {
    if (parquet) Deno.removeSync(join(dir, "requests.parquet"));
    throw new Error(
      `${dir}: ${summary.offered} request rows for ${manifest.plan.scheduled_requests} scheduled requests: the log is incomplete`,
    );
  }

  for (const table of TABLES) {
    const csv = join(dir, `${table}.csv`);
    if (!exists(csv)) continue;
    if (csvToParquet && table !== "requests") await csvToParquet(dir, table, { identity });
    // A run stopped by a failed write keeps its CSVs (its only log) and the sidecars written at ms 0.
    if (failed) continue;
    if (formats.includes("csv")) writeCsvSchema(dir, table, { identity });
    else {
      Deno.removeSync(csv);
      removeIfThere(join(dir, csvSchemaFile(table)));
    }
  }
  releaseRoom(dir);
  manifest.files = {};
  for (const e of [...Deno.readDirSync(dir)].sort((a, b) => a.name.localeCompare(b.name))) {
    if (!e.isFile || e.name === "run.json") continue;
    manifest.files[e.name] = await sha256File(join(dir, e.name));
  }
  const valid = RunManifest.parse(manifest, oneShot());
  writeRunJson(dir, JSON.stringify(valid, null, 2) + "\n");
  return { manifest: valid, summary };
}

/**
 * Replaces run.json whole or not at all: written beside it and renamed over it, so a write that fails (a full disk)
 * leaves the run.json of ms 0 (`running`: read as a killed run), never half a file.
 */
function writeRunJson(dir: string, text: string): void {
  const tmp = join(dir, ".run.json.tmp");
  try {
    Deno.writeTextFileSync(tmp, text);
    Deno.renameSync(tmp, join(dir, "run.json"));
  } catch (e) {
    removeIfThere(tmp);
    throw e;
  }
}

/**
 * The client verdict with its contention: a client-limited run says whether the machine or the runner's own work
 * held it back (runner/cpu_contention.ts `clientLimitCause`), in `client_limit_cause` and at the end of the reason.
 */
function verdictWithCause(v: ReturnType<RequestTally["verdict"]>, contention: CpuContention | null | undefined) {
  // Not measured at all (a caller that finalises a log it did not run): the verdict as it stands.
  if (contention === undefined) return v;
  const cause = v.client_limited ? clientLimitCause(contention) : null;
  return {
    ...v,
    client_limit_reason: cause ? `${v.client_limit_reason} (${cause.why})` : v.client_limit_reason,
    cpu_contention: contention,
    client_limit_cause: cause?.cause ?? null,
  };
}

/** The sha256 of a file, read in {@link HASH_CHUNK} pieces. */
async function sha256File(file: string): Promise<string> {
  const hash = createHash("sha256");
  using f = await Deno.open(file, { read: true });
  const buf = new Uint8Array(HASH_CHUNK);
  for (let n = await f.read(buf); n !== null; n = await f.read(buf)) hash.update(buf.subarray(0, n));
  return hash.digest("hex");
}

type TimelineRow = SimTimelineRow;

/**
 * The server table: the `/sim/timeline` of every route's target that has
 * one, each row tagged with its route (routes sharing one server: their
 * names joined by "+"). No server answering: no server table. A row that is
 * not a valid timeline row (schema/sim_profile.ts SimTimelineRow) is dropped
 * with a warning; returns how many were.
 */
async function copyServerTimelines(
  dir: string,
  targets: readonly { route: string; url: URL }[],
  { epochUnixMs, epochIso, endedMs, runId, sink: polled }: {
    epochUnixMs: number;
    /** run.json `epoch_iso`: the server rows' epoch column (contract 1.6) is it + `t_ms`. */
    epochIso: string;
    endedMs: number;
    runId: string;
    /** The polled servers' open sink, which the timeline rows join; null: none. */
    sink: CsvSink<"server"> | null;
  },
): Promise<number> {
  const byServer = new Map<string, { url: URL; routes: string[] }>();
  for (const t of targets) {
    const url = timelineUrl(t.url);
    const hit = byServer.get(url.href);
    if (hit) hit.routes.push(t.route);
    else byServer.set(url.href, { url, routes: [t.route] });
  }
  const fetched = await Promise.all(
    [...byServer.values()].map(async (s) => ({ ...s, rows: await fetchTimeline(s.url) })),
  );
  if (fetched.every((f) => f.rows === null)) return 0;
  let dropped = 0;
  const sink = polled ?? CsvSink.open(dir, "server", { epochMs: epochMsOf(epochIso) });
  for (const f of fetched) {
    let firstProblem = "";
    let droppedHere = 0;
    for (const raw of f.rows ?? []) {
      const r = SimTimelineRow.safeParse(raw);
      if (!r.success) {
        droppedHere++;
        const issue = r.error.issues[0];
        firstProblem ||= `${issue?.path.join(".") || "(row)"}: ${issue?.message ?? "invalid"}`;
        continue;
      }
      const t = r.data.t_unix_ms - epochUnixMs;
      if (t < 0 || t > endedMs + 1000) continue;
      sink.append(serverRow(runId, f.routes.join("+"), t, r.data));
    }
    if (droppedHere) {
      console.error(`warning: ${f.url}: ${droppedHere} timeline rows dropped (not valid rows; first: ${firstProblem})`);
    }
    dropped += droppedHere;
  }
  if (!polled) sink.close();
  return dropped;
}

/**
 * Fetches a target's timeline (only targets that announced one before the
 * run: runner/timeline_probe.ts). A refused connection or a 5xx other than
 * 501 may be an outage window that is still open when the run ends: retried
 * (0.5, 1, 2, 4, 4 s apart, ≈ 11.5 s in all) before the run is left without
 * that server's rows. A 4xx, a 501 (method unsupported) or a body that is not
 * a JSON array ends it at once.
 */
export async function fetchTimeline(url: URL, waitsMs: readonly number[] = [500, 1000, 2000, 4000, 4000]): Promise<
  unknown[] | null
> {
  let problem = "";
  for (let i = 0; i <= waitsMs.length; i++) {
    if (i > 0) await new Promise((r) => setTimeout(r, waitsMs[i - 1]));
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(3000) });
      if (!res.ok) {
        await res.body?.cancel();
        // 404: a target without a timeline; it simply has no server rows.
        if (res.status === 404) return null;
        problem = `HTTP ${res.status}`;
        if (res.status < 500 || res.status === 501) break;
        continue;
      }
      const text = await res.text();
      let rows: unknown;
      try {
        rows = JSON.parse(text);
      } catch {
        problem = "not JSON";
        break;
      }
      if (Array.isArray(rows)) return rows;
      problem = "not a JSON array";
      break;
    } catch (e) {
      problem = (e as Error).message;
    }
  }
  console.error(`warning: ${url}: ${problem}; no server rows from it`);
  return null;
}

function serverRow(runId: string, route: string, t: number, r: TimelineRow): ServerRow {
  return {
    run_id: runId,
    t_ms: t,
    route,
    queue_len: r.queue_len,
    oldest_queued_ms: r.oldest_queued_ms,
    running: r.running,
    replicas: r.replicas,
    replicas_warming: r.replicas_warming,
    shed: r.shed,
    rate_limited: r.rate_limited,
    errors: r.errors,
    admitted: r.admitted,
    finished: r.finished,
    kv_tokens: r.kv_tokens,
  };
}

/** CPU time of this process so far and its peak RSS (Linux /proc, by `cat` without --allow-all; null elsewhere). */
function ownUsage(): { runner_cpu_ms: number; runner_peak_rss_bytes: number | null } {
  const cpu = process.cpuUsage();
  const m = /VmHWM:\s+(\d+) kB/.exec(readOwnProc("status") ?? "");
  return { runner_cpu_ms: (cpu.user + cpu.system) / 1000, runner_peak_rss_bytes: m ? Number(m[1]) * 1024 : null };
}

function removeIfThere(p: string): void {
  try {
    Deno.removeSync(p);
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound)) throw e;
  }
}

function exists(p: string): boolean {
  try {
    Deno.statSync(p);
    return true;
  } catch {
    return false;
  }
}
