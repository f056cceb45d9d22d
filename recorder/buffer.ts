/**
 * The rows waiting to be written, bounded: a task's rows are taken whole or not at all, so the log never holds an
 * attempt without its request; a task that would pass the bound is dropped and its rows counted per table.
 *
 * @module
 */
import type { AttemptRow, PhaseRow, RequestRow, ToolRow } from "../schema/events.ts";
import type { TaskRows } from "./types.ts";

/** The tables the recorder writes, in the order it writes them. */
export const RECORDED_TABLES = ["requests", "attempts", "tools", "phases"] as const;
export type RecordedTable = (typeof RECORDED_TABLES)[number];

/** Rows of each recorded table. */
export interface TableRows {
  requests: RequestRow[];
  attempts: AttemptRow[];
  tools: ToolRow[];
  phases: PhaseRow[];
}

/** Rows per recorded table. */
export type TableCounts = Record<RecordedTable, number>;

/** No rows. */
export function emptyRows(): TableRows {
  return { requests: [], attempts: [], tools: [], phases: [] };
}

/**
 * The rows in batches of at most `size` rows of one table each, table by table in {@linkcode RECORDED_TABLES} order:
 * what the recorder hands its writer at a time.
 *
 * @example 3 requests and 1 attempt in batches of 2
 * ```ts
 * import { batches, emptyRows } from "./buffer.ts";
 * import assert from "node:assert/strict";
 * const rows = { ...emptyRows(), requests: [1, 2, 3], attempts: [4] } as never;
 * const sizes = [...batches(rows, 2)].map((b) => [b.requests.length, b.attempts.length]);
 * assert.deepEqual(sizes, [[2, 0], [1, 0], [0, 1]]);
 * ```
 */
export function* batches(rows: TableRows, size: number): Generator<TableRows> {
  for (const t of RECORDED_TABLES) {
    const list = rows[t] as unknown[];
    for (let i = 0; i < list.length; i += size) {
      const batch = emptyRows() as unknown as Record<RecordedTable, unknown[]>;
      batch[t] = list.slice(i, i + size);
      yield batch as unknown as TableRows;
    }
  }
}

/**
 * At most `max` rows over every table.
 *
 * @example The second task does not fit: its three rows are dropped, counted by table
 * ```ts
 * import { RowBuffer } from "./buffer.ts";
 * import assert from "node:assert/strict";
 * const b = new RowBuffer(4);
 * const task = (n: number) => ({ request: {} as never, attempts: Array(n).fill({}), tools: [], phases: [], epoch_ms: 0 });
 * assert.equal(b.add(task(2)), true); // 1 request + 2 attempts = 3 rows
 * assert.equal(b.add(task(2)), false); // 3 + 3 > 4
 * assert.deepEqual(b.dropped, { requests: 1, attempts: 2, tools: 0, phases: 0 });
 * assert.equal(b.take().attempts.length, 2);
 * assert.equal(b.size, 0);
 * ```
 */
export class RowBuffer {
  readonly max: number;
  #rows: TableRows = emptyRows();
  #size = 0;
  readonly dropped: TableCounts = { requests: 0, attempts: 0, tools: 0, phases: 0 };

  constructor(max: number) {
    this.max = max;
  }

  /** Rows held now, over every table. */
  get size(): number {
    return this.#size;
  }

  /** Takes a task's rows if they all fit; otherwise drops them, counting each table. */
  add(t: TaskRows): boolean {
    const n = 1 + t.attempts.length + t.tools.length + t.phases.length;
    if (this.#size + n > this.max) {
      this.dropped.requests += 1;
      this.dropped.attempts += t.attempts.length;
      this.dropped.tools += t.tools.length;
      this.dropped.phases += t.phases.length;
      return false;
    }
    this.#rows.requests.push(t.request);
    this.#rows.attempts.push(...t.attempts);
    this.#rows.tools.push(...t.tools);
    this.#rows.phases.push(...t.phases);
    this.#size += n;
    return true;
  }

  /** Everything held, to be written; the buffer is then empty. */
  take(): TableRows {
    const rows = this.#rows;
    this.#rows = emptyRows();
    this.#size = 0;
    return rows;
  }

  /** Drops everything held (a close whose last write failed), counting each table. */
  dropAll(): void {
    const rows = this.take();
    for (const t of RECORDED_TABLES) this.dropped[t] += rows[t].length;
  }

  /**
   * Rows a failed write gives back, ahead of those added since (they were taken first). They were counted in when
   * added, so they are kept even past the bound; new tasks are dropped until the buffer is below it again.
   */
  putBack(table: RecordedTable, rows: readonly unknown[]): void {
    if (!rows.length) return;
    const held = this.#rows as Record<RecordedTable, unknown[]>;
    held[table] = rows.concat(held[table]);
    this.#size += rows.length;
  }
}
