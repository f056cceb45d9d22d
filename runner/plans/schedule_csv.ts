import { createHash } from "node:crypto";
import { join } from "node:path";
import { MAX_ROWS_INPUT_BYTES, readInputText } from "../../schema/read_input.ts";
import { InputError } from "../../schema/errors.ts";
import { describeIssues } from "../../schema/load.ts";
import { ScheduledRequest } from "../../schema/plan.ts";

/** Column order of `schedule.csv`: the keys of {@linkcode ScheduledRequest}. */
export const SCHEDULE_COLUMNS = Object.keys(ScheduledRequest.shape) as (keyof ScheduledRequest)[];

/** Name of the saved schedule inside a run folder. */
export const SCHEDULE_FILE = "schedule.csv";

/** Rows per chunk of {@linkcode scheduleCsvChunks}: the CSV is never one string (10M rows would pass V8's limit). */
const CHUNK_ROWS = 65_536;

/** The `csv-stringify` options whose output {@linkcode scheduleCsvChunks} reproduces (a test holds the two equal). */
export const SCHEDULE_STRINGIFY_OPTIONS = {
  columns: SCHEDULE_COLUMNS as string[],
  record_delimiter: "\n",
  cast: { number: (x: number) => String(x) },
};

/** Characters that put a schedule field in quotes (csv-stringify's default with `\n` records: not `\r`). */
const NEEDS_QUOTES = /[",\n]/;

/** One string field of `schedule.csv`: as it is, or quoted with its quotes doubled; the empty string as nothing. */
function field(v: string): string {
  return NEEDS_QUOTES.test(v) ? `"${v.replaceAll('"', '""')}"` : v;
}

/**
 * The bytes of `schedule.csv` for `entries`, in chunks of up to 65,536 rows
 * (the first starts with the header): header = ScheduledRequest keys, `\n`
 * line ends, numbers in their shortest exact form (`String(x)`, which reads
 * back as the same double). The bytes of csv-stringify with
 * {@linkcode SCHEDULE_STRINGIFY_OPTIONS}, written by hand: csv-stringify took
 * about 2 ms of CPU per 1,000 requests before ms 0.
 */
export function* scheduleCsvChunks(entries: readonly ScheduledRequest[]): Generator<Uint8Array> {
  const encoder = new TextEncoder();
  for (let i = 0; i === 0 || i < entries.length; i += CHUNK_ROWS) {
    let text = i === 0 ? `${SCHEDULE_COLUMNS.join(",")}\n` : "";
    for (const e of entries.slice(i, i + CHUNK_ROWS)) {
      text += `${field(e.request_id)},${e.scheduled_ms},${field(e.case_id)},${field(e.class)},${
        field(e.stage)
      },${e.shard}\n`;
    }
    yield encoder.encode(text);
  }
}

/** The whole `schedule.csv` of `entries` (see {@linkcode scheduleCsvChunks}) as one array. */
export function scheduleCsvBytes(entries: readonly ScheduledRequest[]): Uint8Array {
  const chunks = [...scheduleCsvChunks(entries)];
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) out.set(c, at), at += c.length;
  return out;
}

/** Hex sha256 of the `schedule.csv` that `entries` would be saved as (hashed chunk by chunk). */
export function scheduleSha256(entries: readonly ScheduledRequest[]): Promise<string> {
  const hash = createHash("sha256");
  for (const chunk of scheduleCsvChunks(entries)) hash.update(chunk);
  return Promise.resolve(hash.digest("hex"));
}

/**
 * Writes `dir/schedule.csv` (see {@linkcode scheduleCsvChunks}) chunk by chunk, creating
 * `dir` if needed, and returns the sha256 of the bytes written, for
 * run.json `plan`.
 */
export async function saveSchedule(
  dir: string,
  entries: readonly ScheduledRequest[],
): Promise<{ file: typeof SCHEDULE_FILE; sha256: string }> {
  await Deno.mkdir(dir, { recursive: true });
  const hash = createHash("sha256");
  using file = await Deno.open(join(dir, SCHEDULE_FILE), { write: true, create: true, truncate: true });
  for (const chunk of scheduleCsvChunks(entries)) {
    hash.update(chunk);
    for (let at = 0; at < chunk.length;) at += await file.write(chunk.subarray(at));
  }
  return { file: SCHEDULE_FILE, sha256: hash.digest("hex") };
}

/**
 * Reads a saved schedule back (numbers as numbers). Every bad row is an
 * {@linkcode InputError} naming the file, line and field.
 */
export async function readSchedule(file: string): Promise<ScheduledRequest[]> {
  const text = await readInputText(file, "schedule", MAX_ROWS_INPUT_BYTES);
  let records: { record: Record<string, string>; info: { lines: number } }[];
  // Loaded here, not by every run (csv-parse costs start-up CPU).
  const { parse } = await import("csv-parse/sync");
  try {
    records = parse(text, { columns: true, info: true, skip_empty_lines: true }) as unknown as typeof records;
  } catch (e) {
    throw new InputError(`${file}: not a valid schedule CSV: ${(e as Error).message}`, [], { cause: e });
  }
  const problems: string[] = [];
  const out: ScheduledRequest[] = [];
  for (const { record, info } of records) {
    const value = {
      ...record,
      scheduled_ms: record.scheduled_ms === "" ? NaN : Number(record.scheduled_ms),
      shard: record.shard === "" ? NaN : Number(record.shard),
    };
    const r = ScheduledRequest.safeParse(value);
    if (r.success) out.push(r.data);
    else problems.push(...describeIssues(`${file}: line ${info.lines}`, r.error));
  }
  if (problems.length) throw new InputError(`${file}: invalid schedule`, problems);
  return out;
}
