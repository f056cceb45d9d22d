import pl from "nodejs-polars";
import { endOfWholeRows } from "../schema/log_csv.ts";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { InputError } from "../schema/errors.ts";
import { COLUMNS, OUTCOMES, type TableName } from "../schema/events.ts";
import { RunManifest } from "../schema/run_manifest.ts";
import { assertSchemaVersion } from "../schema/version.ts";
import { requiredColumns, tableDtypes } from "./_dtypes.ts";
import type { LoadedRun } from "./loaded_run.ts";

/** Options for {@linkcode loadRun}. */
export interface LoadRunOptions {
  /**
   * `strict` refuses a log file whose sha256 differs from run.json `files`;
   * `warn` loads it and keeps a loud warning in `warnings`. @default "strict"
   */
  verify?: "strict" | "warn";
  /** Receives each warning as it is raised. @default console.warn */
  onWarning?: (message: string) => void;
}

const REQUIRED: TableName[] = ["requests", "attempts", "tools"];
const SHARD_DIR = /^shard-(\d+)-of-(\d+)$/;

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}

async function sha256File(path: string): Promise<string> {
  const h = createHash("sha256");
  using f = await Deno.open(path, { read: true });
  for await (const chunk of f.readable) h.update(chunk);
  return h.digest("hex");
}

/** The run folders to read: the folder itself, or its `shard-i-of-N/` folders in index order. */
async function runDirs(path: string): Promise<string[]> {
  if (await exists(join(path, "run.json"))) return [path];
  const shards: { i: number; dir: string }[] = [];
  try {
    for await (const e of Deno.readDir(path)) {
      const m = SHARD_DIR.exec(e.name);
      if (e.isDirectory && m) shards.push({ i: Number(m[1]), dir: join(path, e.name) });
    }
  } catch (e) {
    throw new InputError(`${path}: cannot read run folder: ${(e as Error).message}`, [], { cause: e });
  }
  if (!shards.length) throw new InputError(`${path}: not a run folder (no run.json and no shard-i-of-N/ folders)`);
  return shards.sort((a, b) => a.i - b.i).map((s) => s.dir);
}

async function readManifest(dir: string): Promise<RunManifest> {
  const file = join(dir, "run.json");
  let raw: unknown;
  try {
    raw = JSON.parse(await Deno.readTextFile(file));
  } catch (e) {
    throw new InputError(`${file}: cannot read run manifest: ${(e as Error).message}`, [], { cause: e });
  }
  assertSchemaVersion((raw as { schema_version?: unknown } | null)?.schema_version, file);
  const res = RunManifest.safeParse(raw);
  if (!res.success) {
    const problems = res.error.issues.map((i) => `${file}: ${i.path.map(String).join(".") || "(root)"}: ${i.message}`);
    throw new InputError(`${file}: invalid run manifest`, problems);
  }
  return res.data;
}

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
 * columns. A CSV whose last row was cut off mid-write (polars would read it
 * as a row of nulls) is refused, or, for a killed run, read without that row.
 */
async function scanTable(
  file: string,
  table: TableName,
  format: "csv" | "parquet",
  killed: boolean,
  warning: (m: string) => void,
): Promise<pl.LazyDataFrame> {
  const dtypes = tableDtypes(table);
  const expected = COLUMNS[table] as readonly string[];
  const csvOptions = { dtypes, hasHeader: true } as Parameters<typeof pl.scanCSV>[1];
  let lf: pl.LazyDataFrame;
  try {
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
  const got = lf.columns;
  const missing = expected.filter((c) => !got.includes(c));
  const unknown = got.filter((c) => !expected.includes(c));
  if (missing.length || unknown.length) {
    throw new InputError(`${file}: columns do not match the ${table} table`, [
      ...(missing.length ? [`${file}: missing columns: ${missing.join(", ")}`] : []),
      ...(unknown.length ? [`${file}: unknown columns: ${unknown.join(", ")}`] : []),
    ]);
  }
  return lf.select(expected.map((c) => pl.col(c).cast(dtypes[c]!, true)));
}

/** Refuses nulls in never-null columns and outcomes outside the contract, naming the file and column. */
function checkFrame(df: pl.DataFrame, file: string, table: TableName): void {
  const problems: string[] = [];
  for (const c of requiredColumns(table)) {
    const n = df.getColumn(c).nullCount();
    if (n > 0) problems.push(`${file}: ${c}: ${n} null values in a column that is never null`);
  }
  if (table === "requests") {
    const bad = df.getColumn("outcome").unique().toArray().filter((o) => !(OUTCOMES as readonly unknown[]).includes(o));
    if (bad.length) problems.push(`${file}: outcome: unknown values ${bad.map((o) => JSON.stringify(o)).join(", ")}`);
  }
  if (problems.length) throw new InputError(`${file}: invalid ${table} log`, problems);
}

/**
 * Reads a run folder (run.json + requests/attempts/tools[/server] as
 * Parquet or CSV; Parquet when every shard has it) or a folder of
 * `shard-i-of-N/` folders, concatenated in shard order, into polars frames.
 *
 * Checks, each an {@linkcode InputError} naming the file: run.json against
 * the zod `RunManifest` (unknown schema major versions are refused), the
 * columns of every log file, and the sha256 of every file read against
 * run.json `files` (`verify: "warn"` turns a mismatch into a warning). A
 * run whose `result.status` is `running` (killed before finalising) loads
 * with a warning, and its unlisted files are not verified.
 *
 * Lazy: each file is a `scanCSV`/`scanParquet` scan with the casts and the
 * column selection, collected once per file; shards are then concatenated.
 * Frames are checked: never-null columns hold no null, outcomes are known.
 * A CSV whose last row lacks its line end (killed mid-write) is refused,
 * unless the run is `running`, when that row is dropped with a warning.
 *
 * @example A missing folder is an input error
 * ```ts
 * import { loadRun } from "./load_run.ts";
 * import assert from "node:assert/strict";
 * await assert.rejects(() => loadRun("/nonexistent-run"), /not a run folder|cannot read/);
 * ```
 */
export async function loadRun(path: string, options: LoadRunOptions = {}): Promise<LoadedRun> {
  const verify = options.verify ?? "strict";
  const warn = options.onWarning ?? ((m: string) => console.warn(`warning: ${m}`));
  const warnings: string[] = [];
  const warning = (m: string) => {
    warnings.push(m);
    warn(m);
  };

  const dirs = await runDirs(path);
  const manifests: RunManifest[] = [];
  for (const dir of dirs) manifests.push(await readManifest(dir));
  const ids = new Set(manifests.map((m) => m.run_id));
  if (ids.size > 1) throw new InputError(`${path}: shards belong to different runs: ${[...ids].join(", ")}`);

  let allParquet = true;
  for (const dir of dirs) {
    for (const t of REQUIRED) if (!(await exists(join(dir, `${t}.parquet`)))) allParquet = false;
  }
  const format = allParquet ? "parquet" : "csv";

  const frames: Record<TableName, pl.DataFrame[]> = { requests: [], attempts: [], tools: [], server: [] };
  for (const [k, dir] of dirs.entries()) {
    const m = manifests[k]!;
    const running = m.result.status === "running";
    if (running) warning(`${join(dir, "run.json")}: result.status is "running": the run was killed before finalising`);
    // Each table is hashed and read at the same time (polars collects on its own threads), and the
    // tables of a folder are read concurrently: on 1M requests this hides most of the hashing.
    const tables: TableName[] = [];
    for (const table of [...REQUIRED, "server" as const]) {
      const file = join(dir, `${table}.${format}`);
      if (await exists(file)) tables.push(table);
      else if (table !== "server") throw new InputError(`${file}: missing ${table} log`);
    }
    const read = await Promise.all(tables.map(async (table) => {
      const name = `${table}.${format}`;
      const file = join(dir, name);
      const want = m.files[name];
      if (want === undefined) {
        const msg = `${file}: not listed in run.json files, so its sha256 cannot be verified`;
        if (running || verify === "warn") warning(msg);
        else throw new InputError(msg);
      }
      const lf = await scanTable(file, table, format, running, warning);
      const [got, df] = await Promise.all([
        want === undefined ? Promise.resolve(null) : sha256File(file),
        lf.collect().catch((e: Error) => {
          throw new InputError(`${file}: cannot read ${table} log: ${e.message}`, [], { cause: e });
        }),
      ]);
      if (got !== null && got !== want) {
        const msg = `${file}: sha256 ${got} does not match run.json files["${name}"] ${want}: the log was changed`;
        if (verify === "warn") warning(`UNVERIFIED LOG: ${msg}`);
        else throw new InputError(msg);
      }
      checkFrame(df, file, table);
      return [table, df] as const;
    }));
    for (const [table, df] of read) frames[table].push(df);
  }

  const concat = (t: TableName): pl.DataFrame => {
    const parts = frames[t];
    return parts.length === 1 ? parts[0]! : pl.concat(parts, { how: "vertical" });
  };
  return {
    dir: path,
    manifest: manifests[0]!,
    manifests,
    format,
    requests: concat("requests"),
    attempts: concat("attempts"),
    tools: concat("tools"),
    server: frames.server.length ? concat("server") : null,
    warnings,
  };
}
