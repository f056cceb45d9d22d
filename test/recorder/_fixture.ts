/**
 * What the recorder's tests share: a fake clock, a fresh run folder, and a reader of what the recorder wrote (every
 * part, CSV or Parquet, plus run.json).
 *
 * @module
 */
import assert from "node:assert/strict";
import pl from "nodejs-polars";
import { readLogCsv } from "../../runner/sinks/csv_read.ts";
import { EPOCH_COLUMNS, type TableName } from "../../schema/events.ts";
import type { RowOf } from "../../schema/column_kinds.ts";
import { ProductionManifest } from "../../schema/production_manifest.ts";
import { recorder } from "../../recorder/mod.ts";
import type { Clock, Recorder, RecorderOptions } from "../../recorder/types.ts";

/** The fake clock's start: 2026-01-01T00:00:00.000Z, ms since the Unix epoch (a whole ms: the run's epoch). */
export const T0 = Date.UTC(2026, 0, 1);

/** A clock the test moves by hand: `at(ms)` sets it to T0 + ms. */
export class FakeClock implements Clock {
  t = T0;
  now(): number {
    return this.t;
  }
  /** Sets the clock to T0 + `ms` and returns that instant. */
  at(ms: number): number {
    this.t = T0 + ms;
    return this.t;
  }
}

/** A new, absent run folder under a temporary directory, and a way to remove it. */
export function tempOut(): { out: string; dir: string; remove: () => void } {
  const dir = Deno.makeTempDirSync({ prefix: "recorder_test_" });
  return { out: `${dir}/run`, dir, remove: () => Deno.removeSync(dir, { recursive: true }) };
}

/**
 * A recorder on a fake clock, a flush interval that never fires during a test, and its errors collected. It writes on
 * the test's thread unless told `writer: "thread"`: `deno test` type-checks a writer thread's modules each time one
 * starts (some 2 s each on a two-core machine); test/recorder/writer_thread_test.ts holds the two writers to the same
 * bytes, and the tests of the thread itself ask for it.
 */
export function testRecorder(
  out: string,
  over: Partial<RecorderOptions> = {},
): { rec: Recorder; clock: FakeClock; errors: unknown[] } {
  const clock = (over.clock as FakeClock | undefined) ?? new FakeClock();
  const errors: unknown[] = [];
  const rec = recorder({
    out,
    run_id: "prod-1",
    app: { name: "chat", version: "2.3.0" },
    clock,
    onError: (e) => errors.push(e),
    writer: "app",
    ...over,
    buffer: { flush_ms: 3_600_000, ...over.buffer },
  });
  return { rec, clock, errors };
}

/** run.json, checked against the contract. */
export function readManifest(out: string): ProductionManifest {
  return ProductionManifest.parse(JSON.parse(Deno.readTextFileSync(`${out}/run.json`)));
}

/** Polars may hand Int64 back as bigint; compare as plain numbers. */
function plain(records: Record<string, unknown>[]): Record<string, unknown>[] {
  return records.map((r) =>
    Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === "bigint" ? Number(v) : v]))
  );
}

/**
 * Every row of a table over every part listed in run.json, each part read in its format. A Parquet part's epoch column
 * (contract 1.6) is checked to be run.json epoch_iso + its anchor, row by row, and left out, as the CSV reader leaves it.
 */
export async function readTable<T extends TableName>(out: string, table: T): Promise<RowOf<T>[]> {
  const rows: RowOf<T>[] = [];
  const m = readManifest(out);
  const epochMs = Date.parse(m.epoch_iso);
  const { name, of } = EPOCH_COLUMNS[table];
  for (const part of m.parts) {
    const dir = `${out}/${part.dir}`;
    if (part.format === "csv") rows.push(...await readLogCsv(`${dir}/${table}.csv`, table));
    else {
      for (const r of plain(pl.readParquet(`${dir}/${table}.parquet`).toRecords())) {
        const { [name]: epoch, ...row } = r;
        assert.equal(epoch, epochMs + (row[of] as number), `${part.dir}/${table}.parquet ${name}`);
        rows.push(row as RowOf<T>);
      }
    }
  }
  return rows;
}

/** The recorder and its folder for one test, removed after it. */
export async function withRecorder(
  over: Partial<RecorderOptions>,
  fn: (r: { rec: Recorder; clock: FakeClock; errors: unknown[]; out: string }) => Promise<void>,
): Promise<void> {
  const t = tempOut();
  const r = testRecorder(t.out, over);
  try {
    await fn({ ...r, out: t.out });
  } finally {
    await r.rec.close();
    t.remove();
  }
}
