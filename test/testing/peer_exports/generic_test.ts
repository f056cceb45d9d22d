import assert from "node:assert/strict";
import { sourceText } from "../../../importers/sources/_source_text.ts";
import { readGeneric } from "../../../importers/sources/generic.ts";
import { exportGeneric } from "../../../testing/peer_exports/generic.ts";
import { exploreRows, neverSent } from "./_explore_rows.ts";

Deno.test("exportGeneric() → readGeneric() gives back every offered row: ids, stages, times, outcomes, tokens", async () => {
  const { requests, epoch_iso } = await exploreRows();
  const rows = [...requests, neverSent(requests[9]!)];
  const { csv, mapping } = exportGeneric(rows, epoch_iso);
  const run = readGeneric([sourceText("requests.csv", csv), sourceText("mapping.json", mapping)]);
  const epoch = Date.parse(epoch_iso);
  assert.equal(run.requests.length, 528); // a generic file keeps the never-sent row: it is a row like any other
  const close = (x: number | null, y: number | null, what: string) =>
    assert.ok(y === null ? x === null : x !== null && Math.abs(x - y) < 1e-6, `${what}: ${x} ≠ ${y}`);
  rows.forEach((r, i) => {
    const s = run.requests[i]!;
    assert.deepEqual([s.id, s.stage, s.tool_status], [r.request_id, r.stage, r.outcome]);
    assert.equal(s.outcome, r.outcome === "ok" ? "ok" : "error");
    close(s.sent_epoch_ms, r.first_sent_ms === null ? null : epoch + r.first_sent_ms, `${r.request_id} sent`);
    close(s.first_token_epoch_ms, r.first_token_ms === null ? null : epoch + r.first_token_ms, `${r.request_id} first`);
    close(s.completed_epoch_ms, r.completed_ms === null ? null : epoch + r.completed_ms, `${r.request_id} done`);
    assert.deepEqual([s.input_tokens, s.output_tokens, s.http_status], [
      r.input_tokens,
      r.output_tokens,
      r.http_status,
    ]);
  });
  assert.deepEqual(run.stages.map((s) => s.name), [...new Set(rows.map((r) => r.stage))]);
});
