import assert from "node:assert/strict";
import pl from "nodejs-polars";
import { toDanfo } from "../../../analysis/notebook/danfo.ts";

Deno.test("toDanfo() keeps columns, order, values and nulls", async () => {
  const frame = pl.DataFrame({ stage: ["low", "peak", "burst"], accepted: [3, null, 7] });
  const df = await toDanfo(frame);
  assert.deepEqual(df.columns, ["stage", "accepted"]);
  assert.deepEqual(df.shape, [3, 2]);
  assert.deepEqual(df["stage"].values, ["low", "peak", "burst"]);
  const accepted = df["accepted"].values as (number | null)[];
  assert.equal(accepted[0], 3);
  assert.ok(accepted[1] === null || Number.isNaN(accepted[1]));
  assert.deepEqual(frame.getColumn("accepted").toArray(), [3, null, 7]); // input unchanged
  const rows = await toDanfo([{ a: 1 }, { a: 2 }]);
  assert.deepEqual(rows.shape, [2, 1]);
});
