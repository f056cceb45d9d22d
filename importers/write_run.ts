/**
 * Writes an imported run's folder with the runner's own writers (runner/sinks/), so that the files are the
 * contract's byte for byte: requests, attempts and tools (and phases, for an OTLP import) as CSV (each with its schema
 * sidecar) and Parquet (with its key-value metadata), run.json of kind `imported` with the sha256 of every file, and the SLO policy given at import.
 *
 * @module
 */
import { join } from "node:path";
import { InputError } from "../schema/errors.ts";
import { epochMsOf, TABLES } from "../schema/events.ts";
import { ImportedManifest } from "../schema/imported_manifest.ts";
import { rowsTimeOrderProblems } from "../schema/time_order.ts";
import { ROW_CHECKS, ROW_SCHEMAS } from "../schema/column_kinds.ts";
import { describeIssues } from "../schema/load.ts";
import { SloPolicy } from "../schema/slo.ts";
import { CsvSink, writeCsvSchema, writeParquetFromRows } from "../runner/sinks/mod.ts";
import { VERSION } from "../runner/version.ts";
import { sha256Hex } from "./sources/_source_text.ts";
import type { ContractRun } from "./to_contract.ts";

/** Options of {@linkcode writeImportedRun}. */
export interface WriteImportedRunOptions {
  /** The SLO policy given at import: its path as given and its text (copied into the folder as `slo.json`). */
  slo?: { path: string; text: string };
  /** Receives a line of progress per table written (rows so far). */
  onProgress?: (message: string) => void;
  /** Rows per CSV flush and per Parquet row group. @default 16384 */
  batchRows?: number;
}

const SLO_FILE = "slo.json";

/** The SLO policy's problems: its schema, and a class it names that the imported run does not have. */
function checkSlo(slo: { path: string; text: string }, classes: readonly string[]): void {
  let raw: unknown;
  try {
    raw = JSON.parse(slo.text);
  } catch (e) {
    throw new InputError(`${slo.path}: SLO policy is not valid JSON: ${(e as Error).message}`, [], { cause: e });
  }
  const res = SloPolicy.safeParse(raw);
  if (!res.success) throw new InputError(`${slo.path}: invalid SLO policy`, describeIssues(slo.path, res.error));
  const unknown = Object.keys(res.data.classes).filter((c) => !classes.includes(c));
  if (unknown.length) {
    throw new InputError(`${slo.path}: SLO policy names classes the imported run does not have`, [
      `${slo.path}: classes: ${unknown.join(", ")}; ` +
      (classes.length === 1
        ? `an imported run has the one class ${classes[0]} `
        : `the imported run's classes are ${classes.join(", ")} `) +
      "(or give only a default)",
    ]);
  }
}

async function hashFile(path: string): Promise<string> {
  return sha256Hex(await Deno.readFile(path));
}

/** Creates `dir` for an import's output, refusing one that exists and is not empty (an InputError naming --out). */
export function prepareOutDir(dir: string): void {
  try {
    const entries = [...Deno.readDirSync(dir)];
    if (entries.length) throw new InputError(`--out ${dir}: the folder exists and is not empty; give a new folder`);
  } catch (e) {
    if (e instanceof InputError) throw e;
    if (!(e instanceof Deno.errors.NotFound)) {
      throw new InputError(`--out ${dir}: cannot use the folder: ${(e as Error).message}`, [], { cause: e });
    }
    Deno.mkdirSync(dir, { recursive: true });
  }
}

/**
 * Refuses rows the contract does not allow — a value of the wrong type, a count below 0, a time that is not finite
 * (the row schemas, schema/events.ts) — or whose times run backwards (schema/time_order.ts), naming the source files:
 * every reader would refuse the run they make, so nothing is written.
 */
function checkRows(run: ContractRun): void {
  const source = run.manifest.source.files.map((f) => f.path).join(", ");
  const tables = { requests: run.requests, attempts: run.attempts, tools: run.tools ?? [], phases: run.phases ?? [] };
  const problems: string[] = [];
  for (const [name, rows] of Object.entries(tables) as [keyof typeof tables, Record<string, unknown>[]][]) {
    const label = `${source} → ${name}`;
    const bad = rows.filter((r) => !ROW_CHECKS[name](r));
    if (bad.length) {
      const first = ROW_SCHEMAS[name].safeParse(bad[0]);
      const id = `request_id ${JSON.stringify(bad[0]!.request_id)}`;
      const issue = first.success ? `${id}: refused by the compiled check` : describeIssues(id, first.error)[0];
      problems.push(`${label}: ${bad.length} rows the contract does not allow (e.g. ${issue})`);
    }
    problems.push(...rowsTimeOrderProblems(label, name, rows));
  }
  if (problems.length) throw new InputError(`${source}: rows the contract does not allow: nothing written`, problems);
}

/**
 * Writes the run folder `dir` and returns its run.json (validated against the imported kind's schema). An `--slo`
 * policy is checked first (schema, and its classes against the run's one class): nothing is written when it is bad.
 */
export async function writeImportedRun(
  dir: string,
  run: ContractRun,
  options: WriteImportedRunOptions = {},
): Promise<ImportedManifest> {
  if (options.slo) checkSlo(options.slo, run.manifest.workload.classes);
  checkRows(run);
  prepareOutDir(dir);
  const progress = options.onProgress ?? (() => {});
  const size = options.batchRows ?? 16384;
  const identity = { run_id: run.manifest.run_id, epoch_iso: run.manifest.epoch_iso };
  // An OTLP import has tool steps and phases; a per-request source has no tool step and no phases table.
  const tables = {
    requests: run.requests,
    attempts: run.attempts,
    tools: run.tools ?? [],
    server: null,
    phases: run.phases ?? null,
  } as const;
  for (const table of TABLES) {
    const rows = tables[table];
    if (rows === null) continue;
    const sink = CsvSink.open(dir, table, { epochMs: epochMsOf(identity.epoch_iso) });
    for (let i = 0; i < rows.length; i += size) {
      for (const r of rows.slice(i, i + size)) sink.append(r as never);
      sink.flush();
      if (rows.length > size) progress(`${table}.csv: ${Math.min(i + size, rows.length)} of ${rows.length} rows`);
    }
    sink.close();
    writeCsvSchema(dir, table, { identity });
    writeParquetFromRows(join(dir, `${table}.parquet`), table, rows as never[], { identity, rowGroupRows: size });
    progress(`${table}: ${rows.length} rows written (csv, parquet)`);
  }
  let slo: ImportedManifest["slo"];
  if (options.slo) {
    Deno.writeTextFileSync(join(dir, SLO_FILE), options.slo.text);
    slo = { path: options.slo.path, file: SLO_FILE, sha256: await hashFile(join(dir, SLO_FILE)) };
  }
  const files: Record<string, string> = {};
  for (const e of [...Deno.readDirSync(dir)].sort((a, b) => a.name.localeCompare(b.name))) {
    if (e.isFile && e.name !== "run.json") files[e.name] = await hashFile(join(dir, e.name));
  }
  const manifest = ImportedManifest.parse({
    ...run.manifest,
    importer: { name: "goodput-import", version: VERSION, deno: Deno.version.deno },
    ...(slo ? { slo } : {}),
    files,
  });
  Deno.writeTextFileSync(join(dir, "run.json"), JSON.stringify(manifest, null, 2) + "\n");
  return manifest;
}
