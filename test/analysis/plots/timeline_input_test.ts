import assert from "node:assert/strict";
import { join } from "node:path";
import { loadRun } from "../../../analysis/run/load_run.ts";
import { timelineInput } from "../../../analysis/plots/timeline_input.ts";
import type { SloPolicy } from "../../../schema/slo.ts";
import { att, makeManifest, req, writeRun } from "../_fixture.ts";

const POLICY: SloPolicy = {
  denominator: "offered",
  window: { exclude_stage_kinds: ["drain"] },
  classes: {},
  default: { e2e_ms: 5000, gates: ["output_valid", "quality_ok"] },
};

Deno.test("timelineInput() bins offered, completed and accepted per second and samples calls in flight", async () => {
  const stages = [
    { name: "s1", kind: "steady" as const, start_ms: 0, end_ms: 2000, offered_rps: 1.5 },
    { name: "d", kind: "drain" as const, start_ms: 2000, end_ms: 3000, offered_rps: 0 },
  ];
  const tables = {
    requests: [
      req({ request_id: "r1", class: "qa", stage: "s1", scheduled_ms: 100, first_token_ms: 400, completed_ms: 1500 }),
      req({
        request_id: "r2",
        class: "qa",
        stage: "s1",
        scheduled_ms: 600,
        first_token_ms: 900,
        completed_ms: 2500,
        quality_ok: false,
      }),
      req({ request_id: "r3", class: "qa", stage: "s1", scheduled_ms: 1200, outcome: "timeout", http_status: null }),
    ],
    attempts: [
      att({ request_id: "r1", sent_ms: 100, first_token_ms: 400, last_token_ms: 1500, completed_ms: 1500 }),
      att({ request_id: "r2", sent_ms: 600, first_token_ms: 900, last_token_ms: 2500, completed_ms: 2500 }),
      att({ request_id: "r3", sent_ms: 1200 }),
    ],
  };
  const dir = writeRun(join(Deno.makeTempDirSync(), "run"), makeManifest(stages), tables);
  const run = await loadRun(dir, { onWarning: () => {} });
  const t = timelineInput(run, POLICY, { outages: [{ start_ms: 1000, end_ms: 1200, label: "x" }] });
  // 3 bins: the drain stage ends at 3000 ms.
  assert.deepEqual(t.seconds, [0, 1, 2]);
  assert.deepEqual(t.offered, [2, 1, 0]); // scheduled 100, 600 | 1200
  assert.deepEqual(t.completed, [0, 1, 1]); // completed 1500 | 2500
  assert.deepEqual(t.accepted, [0, 1, 0]); // r2 fails quality_ok; the drain stage is counted (whole run)
  // r1 open [100, 1500) covers the 1000 mark; r2 [600, 2500) covers 1000 and 2000; r3 has no end: never open at a mark.
  assert.deepEqual(t.in_flight, [0, 2, 1]);
  assert.equal(t.server, null);
  assert.equal(t.outages.length, 1);
  assert.match(t.disclosure, /n = 3 offered, 2 completed, 1 accepted/);
  Deno.removeSync(dir, { recursive: true });
});
