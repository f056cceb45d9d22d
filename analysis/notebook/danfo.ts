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
  const dfd = await loadDanfo();
  if (Array.isArray(frame)) return new dfd.DataFrame(frame);
  const columns = frame.columns;
  const data: Record<string, unknown[]> = {};
  for (const c of columns) data[c] = frame.getColumn(c).toArray() as unknown[];
  return new dfd.DataFrame(data, { columns });
}

/**
 * Imports danfojs with no stand-in `window` in sight. danfojs loads Plotly whenever a `window` global exists, and Plotly
 * then reads `window.navigator.userAgent` and `document` at once: a `window` without a DOM (one a library or an earlier
 * cell left in a long-lived Jupyter kernel) ends the import with "Cannot read properties of undefined (reading
 * 'userAgent')". Without a `document` there is no page to plot into, so the global is hidden for the first import only
 * (later imports come from the module cache) and put back as it was.
 */
async function loadDanfo(): Promise<typeof import("danfojs")> {
  const g = globalThis as { window?: unknown; document?: unknown };
  const desc = Object.getOwnPropertyDescriptor(globalThis, "window");
  if (g.window === undefined || g.document !== undefined || !desc?.configurable) return await import("danfojs");
  delete g.window;
  try {
    return await import("danfojs");
  } finally {
    Object.defineProperty(globalThis, "window", desc);
  }
}
