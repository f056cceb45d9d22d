/**
 * Reading and writing the quality table (schema/quality.ts): part files in `RUN/quality/`, listed with their sha256 in
 * `quality.json`. A writer adds or replaces one part and rewrites the manifest; the run's own files are never touched.
 * The reader checks everything a verdict could get wrong and reports every problem at once.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { join } from "node:path";
import { parse } from "csv-parse/sync";
import { ParquetWriter, schemaFromColumnData } from "hyparquet-writer";
import { ByteWriter } from "hyparquet-writer";
import { parquetReadObjects } from "hyparquet";
import { InputError } from "./errors.ts";
import { escapeCell, unescapeCell } from "./log_csv.ts";
import { encodeCsvRows } from "./log_encode.ts";
import { parseWith } from "./load.ts";
import { MAX_ROWS_INPUT_BYTES, readInputFile } from "./read_input.ts";
import { type Rubric, rubricSha256, rubricVerdict } from "./rubric.ts";
import {
  QUALITY_COLUMNS,
  QUALITY_DIR,
  QUALITY_MANIFEST,
  QUALITY_SINCE_MINOR,
  QualityManifest,
  type QualityPart,
  QualityRow,
} from "./quality.ts";

const INT_COLUMNS = new Set(["input_tokens", "output_tokens", "calls"]);
const FLOAT_COLUMNS = new Set(["time_spent_ms", "judged_epoch_ms"]);
const BOOL_COLUMNS = new Set(["pass"]);

/** The CSV text of quality rows: a header, then one line per row (string cells escaped as in the log CSVs). */
export function qualityCsv(rows: readonly QualityRow[]): string {
  const lines = rows.map((r) =>
    QUALITY_COLUMNS.map((c) => {
      const v = r[c];
      return typeof v === "string" ? escapeCell(v) : v;
    })
  );
  return QUALITY_COLUMNS.join(",") + "\n" + encodeCsvRows(lines);
}

/** The Parquet bytes of quality rows (typed, nullable columns; counts INT64). */
export function qualityParquet(rows: readonly QualityRow[]): Uint8Array {
  const columnData = QUALITY_COLUMNS.map((name) => {
    const type = INT_COLUMNS.has(name)
      ? "INT64" as const
      : FLOAT_COLUMNS.has(name)
      ? "DOUBLE" as const
      : BOOL_COLUMNS.has(name)
      ? "BOOLEAN" as const
      : "STRING" as const;
    const data = rows.map((r) => {
      const v = r[name];
      return v === null ? null : type === "INT64" ? BigInt(v as number) : v;
    });
    return { name, data, type, nullable: true };
  });
  const bytes = new ByteWriter();
  const w = new ParquetWriter({
    writer: bytes,
    schema: schemaFromColumnData({ columnData }),
    kvMetadata: [{ key: "accepted_goodput.table", value: "quality" }],
    createdBy: "accepted-goodput quality table (hyparquet-writer)",
  });
  if (rows.length) w.write({ columnData, rowGroupSize: rows.length });
  w.finish();
  return bytes.getBytes();
}

/** Options of {@linkcode writeQualityPart}. */
export interface WriteQualityPartOptions {
  /** The part's file name in `RUN/quality/`, e.g. `judge-sim-judge.csv`; its extension is its format. */
  file: string;
  /** What wrote it (`judge`, `review import`, `adjudication`). */
  written_by: string;
  details: Record<string, unknown>;
  /** The rubrics the rows are scored by. */
  rubrics: readonly Rubric[];
}

/** The hex sha256 of bytes. */
export function sha256Hex(bytes: Uint8Array | string): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/**
 * Writes `rows` as one part of the run's quality table and lists it in `quality.json` (a part of the same file name is
 * replaced; the manifest is created with the run's run_id and run.json hash on first write). The file is written
 * whole to a temporary name and renamed, then the manifest likewise: a stopped writer leaves the table as it was.
 */
export async function writeQualityPart(
  runDir: string,
  rows: readonly QualityRow[],
  options: WriteQualityPartOptions,
): Promise<QualityManifest> {
  const format = options.file.endsWith(".parquet") ? "parquet" : "csv";
  const dir = join(runDir, QUALITY_DIR);
  await Deno.mkdir(dir, { recursive: true });
  const runJson = await Deno.readFile(join(runDir, "run.json"));
  const runId = String((JSON.parse(new TextDecoder().decode(runJson)) as { run_id?: unknown }).run_id ?? "");
  const old = await readQualityManifest(runDir);
  const manifest: QualityManifest = old ?? {
    schema_version: 1,
    schema_minor: QUALITY_SINCE_MINOR,
    kind: "quality",
    run_id: runId,
    run_json_sha256: sha256Hex(runJson),
    rubrics: [],
    parts: [],
  };
  const bytes = format === "csv" ? new TextEncoder().encode(qualityCsv(rows)) : qualityParquet(rows);
  await atomicWrite(join(dir, options.file), bytes);
  const part: QualityPart = {
    file: options.file,
    format,
    rows: rows.length,
    sha256: sha256Hex(bytes),
    sources: [...new Set(rows.map((r) => r.source))].sort(),
    written_by: options.written_by,
    created_iso: new Date().toISOString(),
    details: JSON.parse(JSON.stringify(options.details)),
  };
  const parts = manifest.parts.filter((p) => p.file !== options.file).concat(part);
  const rubrics = new Map(manifest.rubrics.map((r) => [r.sha256, r]));
  for (const r of options.rubrics) rubrics.set(r.sha256, r);
  const next = { ...manifest, parts, rubrics: [...rubrics.values()] };
  await atomicWrite(join(dir, QUALITY_MANIFEST), new TextEncoder().encode(JSON.stringify(next, null, 2) + "\n"));
  return next;
}

async function atomicWrite(file: string, bytes: Uint8Array): Promise<void> {
  const tmp = `${file}.tmp-${crypto.randomUUID()}`;
  await Deno.writeFile(tmp, bytes);
  await Deno.rename(tmp, file);
}

/** The run's quality manifest, or null when the run has no quality table. */
export async function readQualityManifest(runDir: string): Promise<QualityManifest | null> {
  const file = join(runDir, QUALITY_DIR, QUALITY_MANIFEST);
  try {
    await Deno.stat(file);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return null;
    throw new InputError(`${file}: cannot read the quality manifest: ${(e as Error).message}`, [], { cause: e });
  }
  const bytes = await readInputFile(file, "quality manifest");
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch (e) {
    throw new InputError(`${file}: quality manifest is not valid UTF-8 JSON: ${(e as Error).message}`, [], {
      cause: e,
    });
  }
  return parseWith(QualityManifest, value, file, "quality manifest");
}

/** What {@linkcode readQuality} checks the verdicts against. */
export interface ReadQualityOptions {
  /** The run's run_id. */
  runId: string;
  /** Every request_id of the run. */
  requestIds: ReadonlySet<string>;
  /**
   * run.json `workload.rubric_hashes` (rubric_id → sha256) when the run froze its rubrics: a verdict by a rubric of
   * another hash is refused.
   */
  rubricHashes?: Readonly<Record<string, string>>;
}

/** The quality table of a run, checked. */
export interface QualityTable {
  manifest: QualityManifest;
  rows: QualityRow[];
  /** The manifest's rubrics by sha256. */
  rubrics: Map<string, Rubric>;
}

/**
 * Reads and checks a run's quality table (null when it has none): the manifest; every part exists with its listed
 * sha256 and row count, and no other file lies in the folder; every row is a valid verdict of this run (its run_id, a
 * known request_id, a known rubric, scores that name every criterion once and are on its scale, `pass` equal to the
 * rubric's verdict); no request has two verdicts from one source. Every problem is reported in one
 * {@linkcode InputError} naming file, row and column.
 */
export async function readQuality(runDir: string, options: ReadQualityOptions): Promise<QualityTable | null> {
  const manifest = await readQualityManifest(runDir);
  if (!manifest) return null;
  const dir = join(runDir, QUALITY_DIR);
  const problems: string[] = [];
  if (manifest.run_id !== options.runId) {
    problems.push(`${join(dir, QUALITY_MANIFEST)}: run_id "${manifest.run_id}" is not this run's ("${options.runId}")`);
  }
  const rubrics = new Map<string, Rubric>();
  manifest.rubrics.forEach((r, i) => {
    const at = `${join(dir, QUALITY_MANIFEST)}: rubrics.${i}`;
    const hash = rubricSha256(r);
    if (hash !== r.sha256) problems.push(`${at}.sha256: does not match rubric ${r.rubric_id} (it hashes to ${hash})`);
    const frozen = options.rubricHashes?.[r.rubric_id];
    if (options.rubricHashes && frozen !== r.sha256) {
      problems.push(
        `${at}: rubric ${r.rubric_id} ${r.sha256.slice(0, 12)} is not the one the run froze (${
          frozen ? frozen.slice(0, 12) : "none of that id"
        })`,
      );
    }
    rubrics.set(r.sha256, r);
  });
  const listed = new Set(manifest.parts.map((p) => p.file));
  for await (const e of Deno.readDir(dir)) {
    if (e.name !== QUALITY_MANIFEST && !listed.has(e.name)) {
      problems.push(
        `${join(dir, e.name)}: not listed in ${QUALITY_MANIFEST} (a writer stopped before it finished: resume it, or ` +
          `remove the file)`,
      );
    }
  }
  const rows: QualityRow[] = [];
  const seen = new Map<string, string>();
  for (const part of manifest.parts) {
    const file = join(dir, part.file);
    let bytes: Uint8Array;
    try {
      bytes = await readInputFile(file, "quality verdicts", MAX_ROWS_INPUT_BYTES);
    } catch (e) {
      problems.push(e instanceof InputError ? e.message : `${file}: ${(e as Error).message}`);
      continue;
    }
    const hash = sha256Hex(bytes);
    if (hash !== part.sha256) {
      problems.push(`${file}: sha256 ${hash} is not the ${part.sha256} listed in ${QUALITY_MANIFEST}`);
      continue;
    }
    const raw = part.format === "csv" ? csvRecords(file, bytes, problems) : await parquetRecords(file, bytes, problems);
    if (raw.length !== part.rows) problems.push(`${file}: ${raw.length} rows, ${QUALITY_MANIFEST} lists ${part.rows}`);
    raw.forEach((record, i) => {
      const at = `${file}: row ${i + 1}`;
      const parsed = QualityRow.safeParse(record);
      if (!parsed.success) {
        for (const issue of parsed.error.issues) problems.push(`${at}: ${issue.path.join(".")}: ${issue.message}`);
        return;
      }
      const row = parsed.data;
      const before = problems.length;
      if (row.run_id !== options.runId) problems.push(`${at}: run_id "${row.run_id}" is not this run's`);
      if (!options.requestIds.has(row.request_id)) {
        problems.push(`${at}: request_id "${row.request_id}" is not a request of this run`);
      }
      const key = `${row.request_id}\u0000${row.source}`;
      const first = seen.get(key);
      if (first) {
        problems.push(`${at}: a second verdict of ${row.source} on request ${row.request_id} (first: ${first})`);
      } else seen.set(key, at);
      const rubric = rubrics.get(row.rubric_sha256);
      if (!rubric) problems.push(`${at}: rubric_sha256 ${row.rubric_sha256} is not a rubric listed in the manifest`);
      else if (rubric.rubric_id !== row.rubric_id) {
        problems.push(
          `${at}: rubric_id "${row.rubric_id}" does not match the rubric of that hash ("${rubric.rubric_id}")`,
        );
      } else {
        let scores: unknown;
        try {
          scores = JSON.parse(row.scores);
        } catch {
          scores = undefined;
        }
        if (!scores || typeof scores !== "object" || Array.isArray(scores)) {
          problems.push(`${at}: scores is not a JSON object of criterion → score: ${row.scores.slice(0, 80)}`);
        } else {
          const verdict = rubricVerdict(rubric, scores as Record<string, number>);
          for (const p of verdict.problems) problems.push(`${at}: scores: ${p}`);
          if (verdict.pass !== null && verdict.pass !== row.pass) {
            problems.push(`${at}: pass is ${row.pass} but the rubric's verdict on its scores is ${verdict.pass}`);
          }
        }
      }
      if (problems.length === before) rows.push(row);
    });
  }
  if (problems.length) {
    throw new InputError(`${dir}: the quality verdicts failed their checks (${problems.length} problems)`, problems);
  }
  return { manifest, rows, rubrics };
}

function csvRecords(file: string, bytes: Uint8Array, problems: string[]): Record<string, unknown>[] {
  let records: Record<string, unknown>[];
  try {
    records = parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes), {
      columns: (header: string[]) => {
        const want = QUALITY_COLUMNS.join(",");
        if (header.join(",") !== want) throw new Error(`header is ${header.join(",")}, expected ${want}`);
        return header;
      },
      cast: (value, context) => {
        if (context.header) return value;
        const column = String(context.column);
        if (context.quoting) return unescapeCell(value);
        if (value === "") return null;
        if (INT_COLUMNS.has(column) || FLOAT_COLUMNS.has(column)) return Number(value);
        if (BOOL_COLUMNS.has(column)) return value === "true" ? true : value === "false" ? false : value;
        return unescapeCell(value);
      },
    });
  } catch (e) {
    problems.push(`${file}: not a quality CSV: ${(e as Error).message}`);
    return [];
  }
  return records;
}

async function parquetRecords(file: string, bytes: Uint8Array, problems: string[]): Promise<Record<string, unknown>[]> {
  try {
    const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
    const records = await parquetReadObjects({ file: buffer });
    return records.map((r) =>
      Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === "bigint" ? Number(v) : v]))
    );
  } catch (e) {
    problems.push(`${file}: not a quality Parquet file: ${(e as Error).message}`);
    return [];
  }
}
