/**
 * Opens a run folder for the SQL path: run.json (every shard's), the Parquet
 * files of `requests` and `attempts` in any of three layouts, their sha256
 * against run.json, their columns and rows — the polars reader's checks —
 * and a DuckDB engine with the views `requests` and `attempts` over them.
 *
 * @module
 */
import { isAbsolute, join, relative, resolve, sep as SEPARATOR } from "node:path";
import { InputError } from "../../schema/errors.ts";
import { type ImportedManifest, isImported } from "../../schema/imported_manifest.ts";
import { isProduction } from "../../schema/production_manifest.ts";
import type { RunManifest } from "../../schema/run_manifest.ts";
import { presentClasses, type WorkloadClasses } from "../goodput/policy.ts";
import { checkShardSet, partialWarning, type ShardSet } from "../run/_shard_set.ts";
import { checkSavedSchedule, scheduleCheck } from "../run/_schedule_check.ts";
import { exists, importedShardSet, readManifest, runDirs, sha256File, warningCollector } from "../run/_run_folders.ts";
import type { E2eDeadlines, RunEnd } from "../run/run_end_rule.ts";
import { type EngineOptions, openEngine, type SqlEngine } from "./duckdb.ts";
import { checkDistinctIds, checkRowJoins, checkSourceRows, sourceColumns } from "./_sql_checks.ts";
import { decideSqlRun, sqlRunEnd } from "./_sql_run_end.ts";
import { SQL_TABLES, type SqlTable, type TableSource, viewSql } from "./views.ts";

export { decideSqlRun };

/** The run.json kinds the SQL path reads: a runner's and an imported run's (a production recording is refused). */
export type SqlManifest = RunManifest | ImportedManifest;

/** Options of {@linkcode openSqlRun}. */
export interface OpenSqlRunOptions extends EngineOptions {
  /** `strict` refuses a file whose sha256 differs from run.json `files` (or is not listed); `warn` reads it with a loud warning. @default "strict" */
  verify?: "strict" | "warn";
  /** Receives each warning as it is raised. @default console.warn */
  onWarning?: (message: string) => void;
  /** Read a sharded run with shards missing (the present ones alone, with a loud warning). @default false */
  allowPartialShards?: boolean;
  /**
   * The e2e limits of the SLO policy the run is analysed under (`e2eDeadlines`): a request in flight at the stop
   * already past its limit at the log's end failed and is not censored (`RunEnd.decided`; `decideSqlRun` does the
   * same on a run already open). @default undefined: every request the stop cut off is censored
   */
  deadlines?: E2eDeadlines | undefined;
}

/** A run opened for SQL: its metadata (as a loaded run's) and an engine whose views `requests` and `attempts` read it. */
export interface SqlRun {
  dir: string;
  manifest: SqlManifest;
  manifests: SqlManifest[];
  format: "parquet";
  /** Each folder's source of each table (the `read_parquet` of the views). */
  sources: Record<SqlTable, TableSource[]>;
  /** The files read, relative to `dir`, for the disclosure. */
  read: string[];
  end: RunEnd;
  shard_set: ShardSet;
  /** The SQL path does not read the server table. */
  server: null;
  /** The classes of the run's workload (run.json, or the requests log for a 1.0 log). */
  workload: WorkloadClasses;
  warnings: string[];
  engine: SqlEngine;
  /** The DuckDB statements that created the views (printed by `--print-sql`). */
  views: string[];
  close(): void;
}

/** One table of one folder: its source and its files, each with the name run.json `files` lists it under. */
interface Located {
  source: Omit<TableSource, "present">;
  files: { file: string; name: string }[];
  hiveKeys: string[];
}

async function parquetFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(dir)) {
    const p = join(dir, e.name);
    if (e.isDirectory) out.push(...await parquetFiles(p));
    else if (e.isFile && e.name.endsWith(".parquet")) out.push(p);
  }
  return out.sort();
}

/**
 * Where a folder keeps `table`: `<table>.parquet`, or a hive-partitioned
 * folder `<table>/key=value/…/*.parquet`. A CSV table is refused: the SQL
 * path reads Parquet.
 */
async function locate(dir: string, table: SqlTable, m: { run_id: string; epoch_iso: string }): Promise<Located> {
  const ids = { run_id: m.run_id, epoch_iso: m.epoch_iso };
  const file = join(dir, `${table}.parquet`);
  if (await exists(file)) {
    return {
      source: { path: file, hive: false, ...ids },
      files: [{ file, name: `${table}.parquet` }],
      hiveKeys: [],
    };
  }
  const folder = join(dir, table);
  let files: string[] = [];
  try {
    if ((await Deno.stat(folder)).isDirectory) files = await parquetFiles(folder);
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound)) throw e;
  }
  if (!files.length) {
    const csv = await exists(join(dir, `${table}.csv`));
    throw new InputError(
      csv
        ? `${
          join(dir, `${table}.csv`)
        }: the SQL path reads Parquet, and this ${table} log is CSV (a run that has not ` +
          "been finalised, or written with --format csv): analyse it with `deno task analyze`, or convert it"
        : `${file}: missing ${table} log (neither ${table}.parquet nor a ${table}/ folder of Parquet files)`,
    );
  }
  // DuckDB reads every `key=value` folder of a path as a column, the run folder's own ancestors included.
  const above = resolve(dir).split(SEPARATOR).filter((c) => c.includes("="));
  if (above.length) {
    throw new InputError(
      `${folder}: the run folder's path has ${above.join(", ")}, which hive partitioning would read as columns ` +
        "of every row: move the run to a path without `=` in its folder names",
    );
  }
  const hiveKeys = new Set<string>();
  for (const f of files) {
    for (const part of relative(folder, f).split(SEPARATOR).slice(0, -1)) {
      const eq = part.indexOf("=");
      if (eq > 0) hiveKeys.add(part.slice(0, eq));
    }
  }
  return {
    source: { path: join(folder, "**", "*.parquet"), hive: true, ...ids },
    files: files.map((f) => ({ file: f, name: relative(dir, f).split(SEPARATOR).join("/") })),
    hiveKeys: [...hiveKeys],
  };
}

/** Checks each file's sha256 against run.json `files`, as the polars reader does (`verify`). */
async function verifyFiles(m: SqlManifest, located: Located, verify: "strict" | "warn", warning: (m: string) => void) {
  for (const { file, name } of located.files) {
    const want = m.files[name];
    if (want === undefined) {
      const msg = `${file}: not listed in run.json files, so its sha256 cannot be verified`;
      if (verify === "warn") warning(msg);
      else throw new InputError(`${msg} (--verify warn reads it with a warning)`);
      continue;
    }
    const got = await sha256File(file);
    if (got === want) continue;
    const msg = `${file}: sha256 ${got} does not match run.json files["${name}"] ${want}: the log was changed`;
    if (verify === "warn") warning(`UNVERIFIED LOG: ${msg}`);
    else throw new InputError(msg);
  }
}

/**
 * Opens a run folder (one folder, or a folder of `shard-i-of-N/` folders) for
 * the SQL path. Each folder keeps each table as `<table>.parquet` or as a
 * hive-partitioned folder `<table>/key=value/…/*.parquet`. Checks, each an
 * {@linkcode InputError} naming the file: run.json (schema, version, the
 * shard set), the sha256 of every file read against run.json `files`, the
 * columns against the log's contract minor version, the rows (never-null
 * columns, run_id, outcomes), request ids unique across shards. A run killed
 * before finalising (run.json still `running`) is refused: its missing rows
 * come from schedule.csv, which only the polars path restores.
 *
 * @example A missing folder is an input error
 * ```ts
 * import assert from "node:assert/strict";
 * import { openSqlRun } from "./sql_run.ts";
 * await assert.rejects(() => openSqlRun("/nonexistent-run"), /not a run folder|cannot read/);
 * ```
 */
export async function openSqlRun(path: string, options: OpenSqlRunOptions = {}): Promise<SqlRun> {
  const verify = options.verify ?? "strict";
  const { warnings, warning } = warningCollector(options.onWarning);
  const dirs = await runDirs(path);
  const manifests: SqlManifest[] = [];
  for (const dir of dirs) {
    const m = await readManifest(dir);
    if (isProduction(m)) {
      throw new InputError(
        `${join(dir, "run.json")}: a production recording (its tables in part-NNNNN/ folders): the SQL path reads ` +
          "runner and imported runs; analyse a recording with `npx deno task analyze`",
      );
    }
    manifests.push(m);
  }
  const shard_set = manifests.some(isImported)
    ? importedShardSet(path, dirs)
    : checkShardSet(path, dirs, manifests as RunManifest[], options.allowPartialShards ?? false);
  const partial = partialWarning(path, shard_set);
  if (partial) warning(partial);
  const killed = dirs.filter((_, k) =>
    !isImported(manifests[k]!) && (manifests[k] as RunManifest).result.status === "running"
  );
  if (killed.length) {
    throw new InputError(`${path}: killed before finalising (run.json result.status "running")`, [
      ...killed.map((d) => `${join(d, "run.json")}: result.status is "running"`),
      "its unlogged requests are restored from schedule.csv by `deno task analyze` only: analyse it there",
    ]);
  }
  const located: { table: SqlTable; k: number; at: Located }[] = [];
  const schedule = scheduleCheck({ verify, warning, hash: sha256File });
  for (const [k, dir] of dirs.entries()) {
    await checkSavedSchedule(dir, manifests[k]!, schedule);
    for (const table of SQL_TABLES) {
      const at = await locate(dir, table, manifests[k]!);
      await verifyFiles(manifests[k]!, at, verify, warning);
      located.push({ table, k, at });
    }
  }
  const engine = await openEngine(options);
  try {
    const sources: Record<SqlTable, TableSource[]> = { requests: [], attempts: [] };
    const problems: string[] = [];
    for (const { table, k, at } of located) {
      const cols = await sourceColumns(engine, table, at.source, manifests[k]!.schema_minor, at.hiveKeys);
      problems.push(...cols.problems);
      sources[table].push({ ...at.source, present: cols.present });
    }
    if (problems.length) throw new InputError(`${path}: columns do not match the contract`, problems);
    for (const table of SQL_TABLES) {
      for (const s of sources[table]) problems.push(...await checkSourceRows(engine, table, s));
    }
    if (problems.length) throw new InputError(`${path}: invalid log rows`, problems);
    const views = SQL_TABLES.map((t) => viewSql(t, sources[t]));
    for (const v of views) await engine.run(v);
    await checkDistinctIds(engine, path, dirs.length);
    await checkRowJoins(engine, path, sources);
    const { end, manifests: clipped } = await sqlRunEnd(engine, dirs, manifests, sources.requests, options.deadlines);
    const declared = clipped[0]!.workload.classes;
    const workload = declared ? { classes: [...declared].sort(), from: "run.json workload.classes" } : presentClasses(
      (await engine.query("SELECT DISTINCT class FROM requests")).map((r) => String(r.class)),
      clipped[0]!,
    );
    const read = [
      ...dirs.map((d) => relative(path, join(d, "run.json")) || "run.json"),
      ...located.flatMap(({ at }) => at.files.map((f) => relative(path, f.file))),
    ].map((f) => (isAbsolute(f) ? f : f.split(SEPARATOR).join("/")));
    return {
      dir: path,
      manifest: clipped[0]!,
      manifests: clipped,
      format: "parquet",
      sources,
      read,
      end,
      shard_set,
      server: null,
      workload,
      warnings,
      engine,
      views,
      close: () => engine.close(),
    };
  } catch (e) {
    engine.close();
    throw e;
  }
}
