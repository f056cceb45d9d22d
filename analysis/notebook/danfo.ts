/**
 * Optional danfojs interop for analysts who prefer its API. danfojs is
 * imported only when {@linkcode toDanfo} is called, so nothing else pays
 * for loading it.
 *
 * @module
 */
import type pl from "nodejs-polars";

/** A danfojs DataFrame (the type of the optional dependency, loaded on use). */
export type DanfoDataFrame = InstanceType<typeof import("danfojs").DataFrame>;

/**
 * A polars frame (or plain rows) as a danfojs DataFrame with the same
 * columns, in the same order. Polars nulls become danfojs missing values
 * (null/NaN). The input is not changed.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import pl from "nodejs-polars";
 * import { toDanfo } from "./danfo.ts";
 * const df = await toDanfo(pl.DataFrame({ stage: ["low", "peak"], accepted: [3, 5] }));
 * assert.deepEqual(df.columns, ["stage", "accepted"]);
 * assert.deepEqual(df.shape, [2, 2]);
 * ```
 */
export async function toDanfo(frame: pl.DataFrame | Record<string, unknown>[]): Promise<DanfoDataFrame> {
  const dfd = await import("danfojs");
  if (Array.isArray(frame)) return new dfd.DataFrame(frame);
  const columns = frame.columns;
  const data: Record<string, unknown[]> = {};
  for (const c of columns) data[c] = frame.getColumn(c).toArray() as unknown[];
  return new dfd.DataFrame(data, { columns });
}
