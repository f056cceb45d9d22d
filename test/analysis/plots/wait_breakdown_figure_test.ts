/**
 * The wait breakdown's figure: one stacked horizontal bar per class and all, each segment's pooled share of the
 * waiting time, the segments no task measured left out and named.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { waitBreakdown } from "../../../analysis/latency/wait_breakdown.ts";
import { waitBreakdownFigure } from "../../../analysis/plots/wait_breakdown.ts";
import { loadRun } from "../../../analysis/run/load_run.ts";
import { writeRun } from "../_fixture.ts";
import { fixtureManifest, fixtureTables } from "../hand_fixture.ts";
import { WAIT_POLICY, waitRecording } from "../latency/_wait_fixture.ts";

Deno.test("waitBreakdownFigure() stacks each class's waiting time by segment, all on top", async () => {
  const w = waitBreakdown(await loadRun(waitRecording(), { onWarning: () => {} }), WAIT_POLICY);
  const f = waitBreakdownFigure(w);
  assert.equal(f.id, "wait-breakdown");
  assert.equal(f.layout.barmode, "stack");
  // Accepted: summarize (D), chat (A, B), then all at the top (plotly draws the first category at the bottom).
  assert.deepEqual(f.data[0]!.y, ["summarize (n 1)", "chat (n 2)", "all (n 3)"]);
  // Every segment some accepted task measured (B measured network and render), one horizontal trace each.
  assert.deepEqual(f.data.map((t) => t.name), WAIT_SEGMENTS_DRAWN);
  assert.ok(f.data.every((t) => t.orientation === "h" && t.type === "bar"));
  // Each bar adds up to the whole waiting time: the pooled shares of a group sum to 1.
  for (let i = 0; i < 3; i++) {
    const sum = f.data.reduce((n, t) => n + (t.x as number[])[i]!, 0);
    assert.ok(Math.abs(sum - 1) < 1e-9, `bar ${i}: ${sum}`);
  }
  // chat's model: A 280 + B 750 of 2000 ms waited = 0.515.
  const model = f.data.find((t) => t.name === "model")!;
  assert.ok(Math.abs((model.x as number[])[1]! - 1030 / 2000) < 1e-12);
  assert.match(
    f.disclosure,
    /^run prod-run; window w0000\+w0001 \(20 s\); production run; n = 3 accepted tasks; outside/,
  );
  assert.ok(f.notes.some((n) => n.startsWith("each segment's intervals are clipped to the task's wait")));
  assert.deepEqual(JSON.parse(JSON.stringify(f)).id, "wait-breakdown");
  // Completed tasks: C joins summarize.
  assert.deepEqual(waitBreakdownFigure(w, { population: "completed" }).data[0]!.y, [
    "summarize (n 2)",
    "chat (n 2)",
    "all (n 4)",
  ]);
});

const WAIT_SEGMENTS_DRAWN = ["page", "network", "queue", "retrieval", "model", "tools", "render", "other"];

Deno.test("waitBreakdownFigure() of a runner's run leaves network, queue and render out and says why", async () => {
  const run = await loadRun(writeRun(join(Deno.makeTempDirSync(), "run"), fixtureManifest(), fixtureTables()), {
    onWarning: () => {},
  });
  const f = waitBreakdownFigure(waitBreakdown(run, { ...WAIT_POLICY, classes: {} }), { population: "completed" });
  assert.deepEqual(f.data.map((t) => t.name), ["page", "retrieval", "model", "tools", "other"]);
  for (const s of ["network", "queue", "render"]) {
    assert.ok(f.notes.some((n) => n.startsWith(`${s}: n/a (not drawn): the log has no phase rows`)), s);
  }
});
