/**
 * The few columns of a run's requests table the judge needs — request_id, case_id and output_sha256 — read from
 * requests.csv (the runner's own reader) or requests.parquet (hyparquet), without polars.
 *
 * @module
 */
import { join } from "node:path";
import { parquetReadObjects } from "hyparquet";
import { z } from "zod";
import { InputError } from "../../schema/errors.ts";
import { MAX_ROWS_INPUT_BYTES, readInputFile } from "../../schema/read_input.ts";
import { readLogCsv } from "../sinks/csv_read.ts";

/** One request of the run as the judge sees it. */
export interface RequestCase {
  request_id: string;
  case_id: string;
  /** sha256 of the answer text the run checked, or null when it had none. */
  output_sha256: string | null;
}

const ParquetRow = z.object({
  request_id: z.string().min(1),
  case_id: z.string().min(1),
  output_sha256: z.string().nullable(),
});

/** The file the requests are read from: requests.csv when there is one, else requests.parquet. */
export function requestsFile(runDir: string): string {
  const csv = join(runDir, "requests.csv");
  try {
    if (Deno.statSync(csv).isFile) return csv;
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound)) throw e;
  }
  return join(runDir, "requests.parquet");
}

/**
 * Every request of the run in file order (the schedule's order). Errors are {@linkcode InputError}s naming the file,
 * row and field.
 *
 * @example A run folder without a requests table is refused by name
 * ```ts
 * import { readRequestCases } from "./requests_table.ts";
 * import assert from "node:assert/strict";
 * const dir = Deno.makeTempDirSync();
 * await assert.rejects(readRequestCases(dir), /requests\.parquet/);
 * ```
 */
export async function readRequestCases(runDir: string): Promise<RequestCase[]> {
  const file = requestsFile(runDir);
  if (file.endsWith(".csv")) {
    const rows = await readLogCsv(file, "requests");
    return rows.map((r) => ({ request_id: r.request_id, case_id: r.case_id, output_sha256: r.output_sha256 }));
  }
  const bytes = await readInputFile(file, "requests table", MAX_ROWS_INPUT_BYTES);
  let records: Record<string, unknown>[];
  try {
    const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
    records = await parquetReadObjects({ file: buffer, columns: ["request_id", "case_id", "output_sha256"] });
  } catch (e) {
    throw new InputError(`${file}: not a requests Parquet file: ${(e as Error).message}`, [], { cause: e });
  }
  const problems: string[] = [];
  const out: RequestCase[] = [];
  records.forEach((r, i) => {
    const parsed = ParquetRow.safeParse(r);
    if (parsed.success) out.push(parsed.data);
    else {for (const issue of parsed.error.issues) {
        problems.push(`${file}: row ${i + 1}: ${issue.path.join(".")}: ${issue.message}`);
      }}
  });
  if (problems.length) throw new InputError(`${file}: the requests table failed its checks`, problems.slice(0, 20));
  return out;
}
