import { join } from "node:path";
import { parse } from "csv-parse/sync";
import { stringify } from "csv-stringify/sync";
import { InputError } from "../../schema/errors.ts";
import { describeIssues } from "../../schema/load.ts";
import { ScheduledRequest } from "../../schema/plan.ts";

/** Column order of `schedule.csv`: the keys of {@linkcode ScheduledRequest}. */
export const SCHEDULE_COLUMNS = Object.keys(ScheduledRequest.shape) as (keyof ScheduledRequest)[];

/** Name of the saved schedule inside a run folder. */
export const SCHEDULE_FILE = "schedule.csv";

async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * The bytes of `schedule.csv` for `entries`: header = ScheduledRequest
 * keys, `\n` line ends, numbers in their shortest exact form (`String(x)`,
 * which reads back as the same double).
 */
export function scheduleCsvBytes(entries: readonly ScheduledRequest[]): Uint8Array {
  const rows = entries.map((e) => SCHEDULE_COLUMNS.map((k) => e[k]));
  const text = stringify(rows, {
    header: true,
    columns: SCHEDULE_COLUMNS as string[],
    record_delimiter: "\n",
    cast: { number: (x) => String(x) },
  });
  return new TextEncoder().encode(text);
}

/** Hex sha256 of the `schedule.csv` that `entries` would be saved as. */
export function scheduleSha256(entries: readonly ScheduledRequest[]): Promise<string> {
  return sha256Hex(scheduleCsvBytes(entries));
}

/**
 * Writes `dir/schedule.csv` (see {@linkcode scheduleCsvBytes}), creating
 * `dir` if needed, and returns the sha256 of the bytes written, for
 * run.json `plan`.
 */
export async function saveSchedule(
  dir: string,
  entries: readonly ScheduledRequest[],
): Promise<{ file: typeof SCHEDULE_FILE; sha256: string }> {
  const bytes = scheduleCsvBytes(entries);
  await Deno.mkdir(dir, { recursive: true });
  await Deno.writeFile(join(dir, SCHEDULE_FILE), bytes);
  return { file: SCHEDULE_FILE, sha256: await sha256Hex(bytes) };
}

/**
 * Reads a saved schedule back (numbers as numbers). Every bad row is an
 * {@linkcode InputError} naming the file, line and field.
 */
export async function readSchedule(file: string): Promise<ScheduledRequest[]> {
  let text: string;
  try {
    text = await Deno.readTextFile(file);
  } catch (e) {
    throw new InputError(`${file}: cannot read schedule: ${(e as Error).message}`, [], { cause: e });
  }
  let records: { record: Record<string, string>; info: { lines: number } }[];
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
