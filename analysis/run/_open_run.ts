import pl from "nodejs-polars";
import { join } from "node:path";
import { InputError } from "../../schema/errors.ts";
import { COLUMNS, columnsAt, type TableName } from "../../schema/events.ts";
import { endOfWholeRows } from "../../lib/csv_rows.ts";
import type { RunManifest } from "../../schema/run_manifest.ts";
import { type AnyManifest, isImported } from "../../schema/imported_manifest.ts";
import { cellsEscaped, unescapedCells } from "./_csv_cells.ts";
import { tableDtypes } from "./_dtypes.ts";
import { clipManifests, endOpenedRun, type RunEnd } from "./run_end.ts";
import { checkShardSet, partialWarning, type ShardSet } from "./_shard_set.ts";
import { exists, importedShardSet, readManifest, runDirs, sha256File } from "./_run_folders.ts";

export { sha256File };
import { checkDistinctIds } from "./_distinct_ids.ts";

/** Options shared by `loadRun` and `scanRun`. */
export interface OpenRunOptions {
  /**
   * `strict` refuses a log file whose sha256 differs from run.json `files`;
   * `warn` reads it and keeps a loud warning in `warnings`. @default "strict"
   */
  verify?: "strict" | "warn";
  /** Receives each warning as it is raised. @default console.warn */
  onWarning?: (message: string) => void;
  /**
   * Analyse a sharded run with shards missing: the present shards alone, with
   * a loud warning and the missing shards in `shard_set` (the disclosure says
   * so). Otherwise a missing shard is refused like every other shard-set
   * problem. @default false
   */
  allowPartialShards?: boolean;
}

/** One log file of one shard folder, scanned (nothing read yet but its schema). */
export interface OpenedTable {
  table: TableName;
  /** Path of the file. */
  file: string;
  /** run.json `run_id` of the file's folder: every row's run_id (a log older than 1.3 gets it from there). */
  run_id: string;
  /** Its lazy scan: the contract's columns, in order, cast to the contract's dtypes. */
  scan: pl.LazyDataFrame;
  /** Streams the file through sha256 and compares it with run.json `files`; throws or warns as `verify` says. */
  verify: () => Promise<void>;
}

/** A run folder (or its shard folders) opened: manifests checked, every table scanned. */
export interface OpenedRun {
  /** The run folders read: the folder itself or its shard folders, in shard order. */
  dirs: string[];
  manifests: AnyManifest[];
  format: "csv" | "parquet";
  /** Per shard folder, in shard order, its tables (server only when present). */
  shards: OpenedTable[][];
  /** How the run ended and where its log ends; `manifests`' stages are clipped there. */
  end: RunEnd;
  /** The run's shard count and which shards were read (`missing` is empty unless `allowPartialShards`). */
  shard_set: ShardSet;
  warnings: string[];
}

const REQUIRED: TableName[] = ["requests", "attempts", "tools"];
/** True when a non-empty file does not end with a line end (a row cut off mid-write). */
async function endsMidRow(file: string): Promise<boolean> {
  using f = await Deno.open(file, { read: true });
  const size = (await f.stat()).size;
  if (size === 0) return false;
  await f.seek(size - 1, Deno.SeekMode.Start);
  const last = new Uint8Array(1);
  await f.read(last);
  return last[0] !== 10;
}

/**
 * Lazily scans one log file with the contract's dtypes and checks its
 * columns against those of the log's contract minor version; a column added
 * in a later minor version is read as null (not recorded), but `run_id`
 * (in attempts, tools and server since 1.3) as run.json's; the string cells
 * of a contract ≥ 1.2 CSV lose their escape (one leading `'`). A CSV whose last
 * row was cut off mid-write (polars would read it as a row of nulls) is
 * refused, or, for a killed run, read without that row.
 */
async function scanTable(
  file: string,
  table: TableName,
  m: { format: "csv" | "parquet"; minor: number; runId: string; killed: boolean; warning: (m: string) => void },
): Promise<pl.LazyDataFrame> {
  const { format, minor, killed, warning } = m;
  const dtypes = tableDtypes(table);
  const expected = columnsAt(table, minor);
  let lf: pl.LazyDataFrame;
  try {
    // The contract's dtypes as the CSV's whole schema, in the file's own column order: inference from the first rows
    // would type a time column Int64 when those rows hold whole milliseconds, and fail on a later 72562.5.
    const header = format === "csv" ? await csvHeader(file) : [];
    checkColumns(file, table, header.length ? header : expected, expected);
    const schema = Object.fromEntries(header.map((c) => [c, dtypes[c]!]));
    const csvOptions = { schema, hasHeader: true } as Parameters<typeof pl.scanCSV>[1];
    if (format === "parquet") lf = pl.scanParquet(file);
    else if (!(await endsMidRow(file))) lf = pl.scanCSV(file, csvOptions);
    else {
      const what = `${file}: truncated last row (no line end: the run was killed mid-write)`;
      if (!killed) throw new InputError(`${what}, but run.json says the run finished`);
      warning(`${what}; dropped`);
      const text = await Deno.readTextFile(file);
      lf = pl.readCSV(text.slice(0, endOfWholeRows(text)), csvOptions as Parameters<typeof pl.readCSV>[1]).lazy();
    }
  } catch (e) {
    if (e instanceof InputError) throw e;
    throw new InputError(`${file}: cannot read ${table} log: ${(e as Error).message}`, [], { cause: e });
  }
  checkColumns(file, table, lf.columns, expected);
  const unescape = format === "csv" && cellsEscaped(minor);
  const read = (c: string) => {
    const e = pl.col(c).cast(dtypes[c]!, true);
    return unescape && dtypes[c] === pl.Utf8 ? unescapedCells(e).alias(c) : e;
  };
  return lf.select(
    (COLUMNS[table] as readonly string[]).map((c) =>
      expected.includes(c) ? read(c) : pl.lit(c === "run_id" ? m.runId : null).cast(dtypes[c]!).alias(c)
    ),
  );
}

function checkColumns(file: string, table: TableName, got: readonly string[], expected: readonly string[]): void {
  const missing = expected.filter((c) => !got.includes(c));
  const unknown = got.filter((c) => !expected.includes(c));
  if (missing.length || unknown.length) {
    throw new InputError(`${file}: columns do not match the ${table} table`, [
      ...(missing.length ? [`${file}: missing columns: ${missing.join(", ")}`] : []),
      ...(unknown.length ? [`${file}: unknown columns: ${unknown.join(", ")}`] : []),
    ]);
  }
}

/** The column names of a CSV file's header line (the runner's writer never quotes a column name). */
async function csvHeader(file: string): Promise<string[]> {
  const f = await Deno.open(file);
  try {
    const buf = new Uint8Array(64 * 1024);
    const n = (await f.read(buf)) ?? 0;
    const text = new TextDecoder().decode(buf.subarray(0, n));
    const end = text.indexOf("\n");
    const line = (end === -1 ? text : text.slice(0, end)).replace(/\r$/, "");
    return line ? line.split(",").map((c) => c.replace(/^"(.*)"$/, "$1")) : [];
  } finally {
    f.close();
  }
}

/**
 * Opens a run folder (run.json + requests/attempts/tools[/server] as Parquet
 * or CSV; Parquet when every shard has it) or a folder of `shard-i-of-N/`
 * folders: reads and checks every run.json, checks that the shards belong to
 * one run, and scans every log file (columns checked, nothing else read).
 * Hashes are checked only when the caller runs each table's `verify`.
 */
export async function openRun(path: string, options: OpenRunOptions = {}): Promise<OpenedRun> {
  const verifyMode = options.verify ?? "strict";
  const warn = options.onWarning ?? ((m: string) => console.warn(`warning: ${m}`));
  const warnings: string[] = [];
  const warning = (m: string) => {
    warnings.push(m);
    warn(m);
  };

  const dirs = await runDirs(path);
  const manifests: AnyManifest[] = [];
  for (const dir of dirs) manifests.push(await readManifest(dir));
  const shard_set = manifests.some(isImported)
    ? importedShardSet(path, dirs)
    : checkShardSet(path, dirs, manifests as RunManifest[], options.allowPartialShards ?? false);
  const partial = partialWarning(path, shard_set);
  if (partial) warning(partial);

  let allParquet = true;
  for (const dir of dirs) {
    for (const t of REQUIRED) if (!(await exists(join(dir, `${t}.parquet`)))) allParquet = false;
  }
  const format = allParquet ? "parquet" : "csv";

  const shards: OpenedTable[][] = [];
  for (const [k, dir] of dirs.entries()) {
    const m = manifests[k]!;
    const running = !isImported(m) && m.result.status === "running";
    if (running) warning(`${join(dir, "run.json")}: result.status is "running": the run was killed before finalising`);
    const tables: OpenedTable[] = [];
    for (const table of [...REQUIRED, "server" as const]) {
      const name = `${table}.${format}`;
      const file = join(dir, name);
      if (!(await exists(file))) {
        if (table === "server") continue;
        throw new InputError(`${file}: missing ${table} log`);
      }
      const want = m.files[name];
      if (want === undefined) {
        const msg = `${file}: not listed in run.json files, so its sha256 cannot be verified`;
        if (running || verifyMode === "warn") warning(msg);
        else throw new InputError(msg);
      }
      const scan = await scanTable(file, table, {
        format,
        minor: m.schema_minor,
        runId: m.run_id,
        killed: running,
        warning,
      });
      const verify = async () => {
        if (want === undefined) return;
        const got = await sha256File(file);
        if (got === want) return;
        const msg = `${file}: sha256 ${got} does not match run.json files["${name}"] ${want}: the log was changed`;
        if (verifyMode === "warn") warning(`UNVERIFIED LOG: ${msg}`);
        else throw new InputError(msg);
      };
      tables.push({ table, file, run_id: m.run_id, scan, verify });
    }
    shards.push(tables);
  }
  checkDistinctIds(path, shards.map((tables) => tables.find((t) => t.table === "requests")!.scan));
  const end = await endOpenedRun(dirs, manifests, shards, { verify: verifyMode, warning, hash: sha256File });
  return { dirs, manifests: clipManifests(manifests, end), format, shards, end, shard_set, warnings };
}

/** The fields `loadRun` and `scanRun` return alike, with each table's shards concatenated in shard order. */
export interface AssembledRun<T> {
  dir: string;
  manifest: AnyManifest;
  manifests: AnyManifest[];
  format: "csv" | "parquet";
  requests: T;
  attempts: T;
  tools: T;
  /** Null when no shard has a server log. */
  server: T | null;
  end: RunEnd;
  shard_set: ShardSet;
  warnings: string[];
}

/**
 * Joins the per-shard tables of an opened run (eager frames or lazy scans)
 * into the run's tables: one shard's table as is, several concatenated
 * vertically.
 */
export function assembleRun<T extends pl.DataFrame | pl.LazyDataFrame>(
  path: string,
  opened: OpenedRun,
  parts: Record<TableName, T[]>,
): AssembledRun<T> {
  const concat = (t: TableName): T => {
    const p = parts[t];
    // pl.concat has one overload per frame kind: T is always one kind, never a mix.
    return p.length === 1 ? p[0]! : (pl.concat(p as pl.DataFrame[], { how: "vertical" }) as T);
  };
  return {
    dir: path,
    manifest: opened.manifests[0]!,
    manifests: opened.manifests,
    format: opened.format,
    requests: concat("requests"),
    attempts: concat("attempts"),
    tools: concat("tools"),
    server: parts.server.length ? concat("server") : null,
    end: opened.end,
    shard_set: opened.shard_set,
    warnings: opened.warnings,
  };
}
